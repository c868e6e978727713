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
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/nodeclass"
)

// +kubebuilder:webhook:path=/validate-karpenter-kakaocloud-com-v1-kcnodeclass,mutating=false,failurePolicy=fail,sideEffects=None,groups=karpenter.kakaocloud.com,resources=kcnodeclasses,verbs=create;update,versions=v1,name=vkcnodeclass-v1.karpenter.kakaocloud.com,admissionReviewVersions=v1

// lookupTimeout keeps an admission answer well within the API server's webhook timeout.
const lookupTimeout = 4 * time.Second

// VersionSource is where the KCNodeClass webhook reads the versions Kubernetes Engine offers
// and the control plane's version; the cached reads serve when Kubernetes Engine is down.
type VersionSource interface {
	Cluster(ctx context.Context) (kakaocloud.Cluster, error)
	Versions(ctx context.Context) ([]kakaocloud.KubernetesVersion, error)
	CachedCluster() (kakaocloud.Cluster, bool)
	CachedVersions() ([]kakaocloud.KubernetesVersion, bool)
}

// KCNodeClassValidator refuses a worker Kubernetes version that Kubernetes Engine no longer
// offers or that is outside the skew the control plane allows, when a KCNodeClass is created
// or its version changed. Updates that keep the version are always allowed, so that a
// deprecated version keeps working for the node classes that already use it.
type KCNodeClassValidator struct {
	Versions VersionSource
}

var _ admission.Validator[*kcv1.KCNodeClass] = KCNodeClassValidator{}

// SetupKCNodeClassWebhookWithManager registers the KCNodeClass validating webhook.
func SetupKCNodeClassWebhookWithManager(mgr ctrl.Manager, versions VersionSource) error {
	if err := ctrl.NewWebhookManagedBy(mgr, &kcv1.KCNodeClass{}).WithValidator(KCNodeClassValidator{Versions: versions}).Complete(); err != nil {
		return fmt.Errorf("registering it with the manager: %w", err)
	}
	return nil
}

// ValidateCreate checks the version of a new KCNodeClass.
func (v KCNodeClassValidator) ValidateCreate(ctx context.Context, nodeClass *kcv1.KCNodeClass) (admission.Warnings, error) {
	return v.validateVersion(ctx, nodeClass)
}

// ValidateUpdate checks the version when it changes.
func (v KCNodeClassValidator) ValidateUpdate(ctx context.Context, old, nodeClass *kcv1.KCNodeClass) (admission.Warnings, error) {
	if old.Spec.Bootstrap.KubernetesVersion == nodeClass.Spec.Bootstrap.KubernetesVersion {
		return nil, nil
	}
	return v.validateVersion(ctx, nodeClass)
}

// ValidateDelete allows every deletion; the finalizer guards node classes in use.
func (KCNodeClassValidator) ValidateDelete(context.Context, *kcv1.KCNodeClass) (admission.Warnings, error) {
	return nil, nil
}

func (v KCNodeClassValidator) validateVersion(ctx context.Context, nodeClass *kcv1.KCNodeClass) (admission.Warnings, error) {
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	version := nodeClass.Spec.Bootstrap.KubernetesVersion
	path := field.NewPath("spec", "bootstrap", "kubernetesVersion")

	versions, versionsErr := v.Versions.Versions(ctx)
	if versionsErr != nil {
		versions, _ = v.Versions.CachedVersions()
	}
	cluster, clusterErr := v.Versions.Cluster(ctx)
	clusterKnown := clusterErr == nil
	if !clusterKnown {
		cluster, clusterKnown = v.Versions.CachedCluster()
	}
	var warnings admission.Warnings
	if versionsErr != nil && versions == nil {
		warnings = append(warnings, fmt.Sprintf("Kubernetes Engine cannot be reached (%v) and no versions are known: Kubernetes version %s was not checked; the KCNodeClass's KubernetesVersionReady condition will report on it", versionsErr, version))
	}
	if !clusterKnown {
		warnings = append(warnings, fmt.Sprintf("the control plane's version cannot be read (%v): the version skew of %s was not checked", clusterErr, version))
	}

	check := nodeclass.CheckWorkerVersion(version, versions, cluster.Version.MinorVersion, clusterKnown)
	var errs field.ErrorList
	switch {
	case check.NotOffered:
		errs = append(errs, field.Invalid(path, version, fmt.Sprintf("Kubernetes Engine does not offer Kubernetes %s (deprecated or unknown); allowed versions: %s", version, list(check.Allowed))))
	case check.OutOfSkew:
		errs = append(errs, field.Invalid(path, version, fmt.Sprintf("Kubernetes %s is outside the version skew the control plane (%s) allows for workers; allowed versions: %s", version, cluster.Version.MinorVersion, list(check.Allowed))))
	}
	if len(errs) > 0 {
		return warnings, apierrors.NewInvalid(kcv1.GroupVersion.WithKind("KCNodeClass").GroupKind(), nodeClass.Name, errs)
	}
	return warnings, nil
}

func list(versions []string) string {
	if len(versions) == 0 {
		return "none"
	}
	return strings.Join(versions, ", ")
}
