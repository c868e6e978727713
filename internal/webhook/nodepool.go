// Copyright 2026 The karpenter-provider-kakaocloud Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package webhook

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// +kubebuilder:webhook:path=/validate-karpenter-sh-v1-nodepool,mutating=false,failurePolicy=fail,sideEffects=None,groups=karpenter.sh,resources=nodepools,verbs=create;update,versions=v1,name=vnodepool-v1.karpenter.sh,admissionReviewVersions=v1

// NodePoolValidator rejects NodePools whose budget schedules do not parse or whose taints
// repeat a key and effect.
type NodePoolValidator struct{}

var _ admission.Validator[*karpv1.NodePool] = NodePoolValidator{}

// SetupNodePoolWebhookWithManager registers the NodePool validating webhook.
func SetupNodePoolWebhookWithManager(mgr ctrl.Manager) error {
	if err := ctrl.NewWebhookManagedBy(mgr, &karpv1.NodePool{}).WithValidator(NodePoolValidator{}).Complete(); err != nil {
		return fmt.Errorf("registering it with the manager: %w", err)
	}
	return nil
}

// ValidateCreate checks a new NodePool.
func (NodePoolValidator) ValidateCreate(_ context.Context, np *karpv1.NodePool) (admission.Warnings, error) {
	return nil, validateNodePool(np)
}

// ValidateUpdate checks a changed NodePool.
func (NodePoolValidator) ValidateUpdate(_ context.Context, _, np *karpv1.NodePool) (admission.Warnings, error) {
	return nil, validateNodePool(np)
}

// ValidateDelete allows every deletion.
func (NodePoolValidator) ValidateDelete(context.Context, *karpv1.NodePool) (admission.Warnings, error) {
	return nil, nil
}

func validateNodePool(np *karpv1.NodePool) error {
	if errs := np.RuntimeValidate(); len(errs) > 0 {
		return apierrors.NewInvalid(karpv1.GroupVersion.WithKind("NodePool").GroupKind(), np.Name, errs)
	}
	return nil
}
