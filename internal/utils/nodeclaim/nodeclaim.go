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

package nodeclaim

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/conditions"
)

// Six controllers write a NodeClaim: its lifecycle, the Drifted and Consolidatable
// conditions, pod events, the NodePool controller (its hash) and the disruption loop; the
// cloud provider annotates it at launch. Every one writes through this package. Its conditions
// and finalizers are lists, and a JSON merge patch replaces a list whole: a patch computed from
// a stale copy would undo a condition or a finalizer another writer has just written. So every
// patch carries the resourceVersion of the copy it was computed from, and the API server
// refuses a stale one with Conflict. Then the writer's own changes, and only those (the fields
// and conditions that differ between the copy it read and the one it made), are applied to the
// current NodeClaim and written again. Each controller sets only the conditions it owns, so
// that no two writers change the same one. Two writes need no resourceVersion, as they touch
// no list: annotations set key by key (Annotate, under the UID instead) and the pod events'
// one field, status.lastPodEventTime (StampLastPodEvent). Deletes carry the UID.
//
// A write's error is returned as the API server answered it, as every caller says which write,
// on which NodeClaim; the steps a caller does not see are wrapped with what they were: a
// rebase's, and which of Write's two patches.

// PatchStatus writes nodeClaim's status where it differs from stored, the copy it was read
// as. On success nodeClaim is what the API server holds.
func PatchStatus(ctx context.Context, c client.Client, stored, nodeClaim *karpv1.NodeClaim) error {
	if equality.Semantic.DeepEqual(stored.Status, nodeClaim.Status) {
		return nil
	}
	err := c.Status().Patch(ctx, nodeClaim, lockedPatch(stored))
	if !apierrors.IsConflict(err) {
		return err //nolint:wrapcheck // the caller says which write, on which NodeClaim
	}
	changed := nodeClaim.DeepCopy()
	return rebase(ctx, c, nodeClaim, func(current *karpv1.NodeClaim) error {
		next := current.DeepCopy()
		rebaseStatus(&next.Status, stored.Status, changed.Status)
		if equality.Semantic.DeepEqual(current.Status, next.Status) {
			next.DeepCopyInto(nodeClaim)
			return nil
		}
		if err := c.Status().Patch(ctx, next, lockedPatch(current)); err != nil {
			return fmt.Errorf("writing the changes onto the current NodeClaim: %w", err)
		}
		next.DeepCopyInto(nodeClaim)
		return nil
	})
}

// Write writes nodeClaim's metadata, then its status, where they differ from stored, for a
// controller that changes both in one pass. The status patch is computed against the
// NodeClaim the metadata patch answered with (the API server's, at its new resourceVersion)
// with this writer's status changes applied to it, so that the lock still guards the status.
// On success nodeClaim is what the API server holds.
func Write(ctx context.Context, c client.Client, stored, nodeClaim *karpv1.NodeClaim) error {
	desired := nodeClaim.Status.DeepCopy()
	if err := Patch(ctx, c, stored, nodeClaim); err != nil {
		return fmt.Errorf("patching the metadata: %w", err)
	}
	server := stored
	if nodeClaim.ResourceVersion == stored.ResourceVersion {
		nodeClaim.Status = *desired
	} else {
		server = nodeClaim.DeepCopy()
		rebaseStatus(&nodeClaim.Status, stored.Status, *desired)
	}
	if err := PatchStatus(ctx, c, server, nodeClaim); err != nil {
		return fmt.Errorf("patching the status: %w", err)
	}
	return nil
}

// Patch writes nodeClaim's labels, annotations and finalizers where they differ from stored,
// under the same rule. (The spec is immutable; other metadata is not the controllers' to
// write, and a change to it is written only from a current copy.) On success nodeClaim is
// what the API server holds, its status included.
func Patch(ctx context.Context, c client.Client, stored, nodeClaim *karpv1.NodeClaim) error {
	if equality.Semantic.DeepEqual(stored.ObjectMeta, nodeClaim.ObjectMeta) {
		return nil
	}
	err := c.Patch(ctx, nodeClaim, lockedPatch(stored))
	if !apierrors.IsConflict(err) || !onlyMapsAndFinalizers(stored.ObjectMeta, nodeClaim.ObjectMeta) {
		return err //nolint:wrapcheck // the caller says which write, on which NodeClaim
	}
	changed := nodeClaim.DeepCopy()
	return rebase(ctx, c, nodeClaim, func(current *karpv1.NodeClaim) error {
		next := current.DeepCopy()
		next.Labels = rebaseMap(next.Labels, stored.Labels, changed.Labels)
		next.Annotations = rebaseMap(next.Annotations, stored.Annotations, changed.Annotations)
		next.Finalizers = rebaseSet(next.Finalizers, stored.Finalizers, changed.Finalizers)
		if err := c.Patch(ctx, next, lockedPatch(current)); err != nil {
			return fmt.Errorf("writing the changes onto the current NodeClaim: %w", err)
		}
		next.DeepCopyInto(nodeClaim)
		return nil
	})
}

// Deletion is what a delete of a NodeClaim by UID met.
type Deletion int

const (
	// Deleted is a delete the API server accepted.
	Deleted Deletion = iota
	// Gone is a NodeClaim no longer there.
	Gone
	// Replaced is a name that has passed to a later NodeClaim, which the delete left alone.
	Replaced
)

// Accepted says whether the delete was accepted.
func (d Deletion) Accepted() bool { return d == Deleted }

// Delete deletes nodeClaim and never a later NodeClaim of the same name: the delete carries
// its UID as a precondition, which the API server refuses with Conflict once the name has
// passed to a new NodeClaim. It says what it met; a NodeClaim that is gone, or replaced, has
// nothing left to delete, and that is no error (a retry would only meet the same answer).
func Delete(ctx context.Context, c client.Client, nodeClaim *karpv1.NodeClaim) (Deletion, error) {
	err := c.Delete(ctx, nodeClaim, client.Preconditions{UID: &nodeClaim.UID})
	switch {
	case apierrors.IsNotFound(err):
		return Gone, nil
	case apierrors.IsConflict(err):
		return Replaced, nil
	case err != nil:
		return Gone, err //nolint:wrapcheck // the caller says which NodeClaim it was deleting
	}
	return Deleted, nil
}

// Annotate writes the annotations given (a nil value removes one) and nothing else: a merge
// patch of those keys alone cannot undo another writer's change to the map, so it carries no
// resourceVersion, only the NodeClaim's UID, so that a NodeClaim of the same name made since
// is refused rather than annotated. On success nodeClaim is what the API server holds; pass a
// copy to keep the caller's.
func Annotate(ctx context.Context, c client.Client, nodeClaim *karpv1.NodeClaim, annotations map[string]*string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"uid": nodeClaim.UID, "annotations": annotations}})
	if err != nil {
		return fmt.Errorf("writing the annotations of NodeClaim %s as a patch: %w", nodeClaim.Name, err)
	}
	return c.Patch(ctx, nodeClaim, client.RawPatch(types.MergePatchType, patch)) //nolint:wrapcheck // the caller says which annotations, on which NodeClaim
}

// StampLastPodEvent writes status.lastPodEventTime alone, as upstream does: a field no list
// holds, so a patch of it without the resourceVersion cannot undo another writer's change,
// and need not be refused when the cached copy is behind, as it often is while hundreds of
// pods are bound. On success nodeClaim is what the API server holds.
func StampLastPodEvent(ctx context.Context, c client.Client, nodeClaim *karpv1.NodeClaim, at time.Time) error {
	stored := nodeClaim.DeepCopy()
	nodeClaim.Status.LastPodEventTime = metav1.NewTime(at)
	return c.Status().Patch(ctx, nodeClaim, client.MergeFrom(stored)) //nolint:wrapcheck // the caller says which write, on which NodeClaim
}

// TerminateBy makes the NodeClaim's drain end by at: its termination timestamp annotation,
// which termination reads as the moment pods are deleted without waiting on evictions, is set
// to at, unless one already ends the drain sooner. An annotation that cannot be read is
// replaced.
func TerminateBy(ctx context.Context, c client.Client, nodeClaim *karpv1.NodeClaim, at time.Time) error {
	if value, ok := nodeClaim.Annotations[karpv1.NodeClaimTerminationTimestampAnnotationKey]; ok {
		if current, err := time.Parse(time.RFC3339, value); err == nil && !current.After(at) {
			return nil
		}
	}
	stored := nodeClaim.DeepCopy()
	metav1.SetMetaDataAnnotation(&nodeClaim.ObjectMeta, karpv1.NodeClaimTerminationTimestampAnnotationKey, at.UTC().Format(time.RFC3339))
	return Patch(ctx, c, stored, nodeClaim)
}

// rebase reads the NodeClaim again and hands it to write, as long as the write conflicts
// (the read may come from a cache a step behind). A NodeClaim that is gone, or replaced by
// one of the same name, is NotFound.
func rebase(ctx context.Context, c client.Client, nodeClaim *karpv1.NodeClaim, write func(current *karpv1.NodeClaim) error) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current := &karpv1.NodeClaim{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(nodeClaim), current); err != nil {
			return fmt.Errorf("reading the current NodeClaim: %w", err)
		}
		if current.UID != nodeClaim.UID {
			return apierrors.NewNotFound(karpv1.GroupVersion.WithResource("nodeclaims").GroupResource(), nodeClaim.Name)
		}
		return write(current)
	})
	if err != nil {
		return fmt.Errorf("rebasing after a conflict: %w", err)
	}
	return nil
}

// rebaseStatus applies to current the changes from stored to changed, field by field and
// condition by condition.
func rebaseStatus(current *karpv1.NodeClaimStatus, stored, changed karpv1.NodeClaimStatus) {
	carry(&current.NodeName, stored.NodeName, changed.NodeName)
	carry(&current.ProviderID, stored.ProviderID, changed.ProviderID)
	carry(&current.ImageID, stored.ImageID, changed.ImageID)
	carry(&current.Capacity, stored.Capacity, changed.Capacity)
	carry(&current.Allocatable, stored.Allocatable, changed.Allocatable)
	carry(&current.LastPodEventTime, stored.LastPodEventTime, changed.LastPodEventTime)
	conditionTypes := sets.New[string]()
	for _, c := range slices.Concat(stored.Conditions, changed.Conditions) {
		conditionTypes.Insert(c.Type)
	}
	for _, t := range sets.List(conditionTypes) {
		before, after := meta.FindStatusCondition(stored.Conditions, t), meta.FindStatusCondition(changed.Conditions, t)
		if equality.Semantic.DeepEqual(before, after) {
			continue
		}
		meta.RemoveStatusCondition(&current.Conditions, t)
		if after != nil {
			current.Conditions = append(current.Conditions, *after)
		}
	}
	conditions.Sort(current.Conditions)
}

func carry[T any](into *T, before, after T) {
	if !equality.Semantic.DeepEqual(before, after) {
		*into = after
	}
}

// rebaseMap applies to current the keys set, changed or removed from stored to changed.
func rebaseMap(current, stored, changed map[string]string) map[string]string {
	for k, v := range changed {
		if was, ok := stored[k]; !ok || was != v {
			if current == nil {
				current = map[string]string{}
			}
			current[k] = v
		}
	}
	for k := range stored {
		if _, ok := changed[k]; !ok {
			delete(current, k)
		}
	}
	return current
}

// rebaseSet applies to current the entries added and removed from stored to changed.
func rebaseSet(current, stored, changed []string) []string {
	for _, f := range changed {
		if !slices.Contains(stored, f) && !slices.Contains(current, f) {
			current = append(current, f)
		}
	}
	return slices.DeleteFunc(current, func(f string) bool { return slices.Contains(stored, f) && !slices.Contains(changed, f) })
}

// onlyMapsAndFinalizers reports whether stored and changed differ in nothing but labels,
// annotations and finalizers (and what the API server sets).
func onlyMapsAndFinalizers(stored, changed metav1.ObjectMeta) bool {
	strip := func(m metav1.ObjectMeta) metav1.ObjectMeta {
		m = *m.DeepCopy()
		m.Labels, m.Annotations, m.Finalizers, m.ResourceVersion, m.ManagedFields = nil, nil, nil, "", nil
		return m
	}
	return equality.Semantic.DeepEqual(strip(stored), strip(changed))
}

func lockedPatch(stored *karpv1.NodeClaim) client.Patch {
	return client.MergeFromWithOptions(stored, client.MergeFromWithOptimisticLock{})
}
