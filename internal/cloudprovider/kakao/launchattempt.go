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

package kakao

import (
	"context"
	"fmt"
	"time"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	nodeclaimutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/nodeclaim"
)

// forgetAttemptsAfter bounds the memory of launch attempts (CloudProvider.attempts): an
// attempt this old no longer holds back a create (the lookup window is minutes), and its
// NodeClaim is most likely gone.
const forgetAttemptsAfter = time.Hour

// lastAttempt is when a create was last tried for the NodeClaim, by its annotation or by this
// process's memory, whichever is later. An annotation that does not parse counts as a create
// tried now: waiting out the window is the safe reading.
func (p *CloudProvider) lastAttempt(nodeClaim *karpv1.NodeClaim) time.Time {
	remembered, _ := p.attempts.Get(nodeClaim.UID, p.clock.Now())
	value, ok := nodeClaim.Annotations[kcv1.AnnotationLaunchAttempt]
	if !ok {
		return remembered
	}
	recorded, err := time.Parse(time.RFC3339Nano, value)
	if err != nil {
		recorded = p.clock.Now()
	}
	if recorded.After(remembered) {
		return recorded
	}
	return remembered
}

// recordAttempt writes (or, for the zero time, removes) the NodeClaim's launch-attempt
// annotation with a patch of its own, leaving the caller's copy of the NodeClaim untouched.
func (p *CloudProvider) recordAttempt(ctx context.Context, nodeClaim *karpv1.NodeClaim, at time.Time) error {
	var value *string
	if !at.IsZero() {
		value = new(at.UTC().Format(time.RFC3339Nano))
	}
	// Under the NodeClaim's UID: a NodeClaim of the same name made since is left alone.
	if err := nodeclaimutil.Annotate(ctx, p.kube, nodeClaim.DeepCopy(), map[string]*string{kcv1.AnnotationLaunchAttempt: value}); err != nil {
		return fmt.Errorf("annotating NodeClaim %s with %s: %w", nodeClaim.Name, kcv1.AnnotationLaunchAttempt, err)
	}
	p.rememberAttempt(nodeClaim, at)
	return nil
}

// rememberAttempt keeps in memory the create tried for the NodeClaim at at, or forgets it for
// the zero time.
func (p *CloudProvider) rememberAttempt(nodeClaim *karpv1.NodeClaim, at time.Time) {
	if at.IsZero() {
		p.attempts.Delete(nodeClaim.UID)
		return
	}
	p.attempts.Set(nodeClaim.UID, at, at)
}
