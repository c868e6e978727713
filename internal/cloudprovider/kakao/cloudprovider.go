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
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/klog/v2"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/catalog"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instance"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instancetype"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/uidcache"
)

// MaxLaunchCandidates caps the instance type and zone pairs one launch tries, cheapest first,
// so that a launch stays quick when capacity is short everywhere.
const MaxLaunchCandidates = 60

// Drift reasons.
const (
	DriftImage             cloudprovider.DriftReason = "ImageDrift"
	DriftKubernetesVersion cloudprovider.DriftReason = "KubernetesVersionDrift"
	DriftSubnet            cloudprovider.DriftReason = "SubnetDrift"
	DriftSecurityGroup     cloudprovider.DriftReason = "SecurityGroupDrift"
	DriftNodeClass         cloudprovider.DriftReason = "NodeClassDrift"
)

// FlavorSource lists flavors (the catalog).
type FlavorSource interface {
	Flavors(ctx context.Context) ([]kakaocloud.Flavor, error)
}

// CloudProvider is the KakaoCloud implementation of cloudprovider.CloudProvider.
type CloudProvider struct {
	kube  client.Client
	clock clock.PassiveClock
	// attempts remembers the last create tried per NodeClaim in this process as well: the
	// NodeClaim a launch reads can come from a cache that does not show the annotation
	// written a moment ago, and a create must never be tried twice because of it.
	attempts      uidcache.Cache[time.Time]
	flavors       FlavorSource
	instanceTypes *instancetype.Provider
	prices        Prices
	unavailable   *instancetype.UnavailableOfferings
	launches      launchStatuses
	instances     *instance.Provider
	recorder      events.EventRecorder
	bootstrap     Bootstrapper
	repair        RepairTolerations
	zones         *zoneSpread
}

// Bootstrapper renders the user data that joins a NodeClaim's VM to the cluster, for each
// instance type the VM may be launched as.
type Bootstrapper interface {
	UserData(ctx context.Context, nodeClaim *karpv1.NodeClaim, nodeClass *kcv1.KCNodeClass) (func(*cloudprovider.InstanceType) (string, error), error)
}

var _ cloudprovider.CloudProvider = (*CloudProvider)(nil)

// Prices are the relative costs instance types are chosen by, with the operators' overrides
// read from a ConfigMap before each use (a cached read).
type Prices struct {
	Table     *instancetype.PriceTable
	Overrides instancetype.PriceOverrideSource
}

// New returns the KakaoCloud cloud provider. The instance type provider must price with
// prices.Table and mark offerings in unavailable.
func New(kube client.Client, flavors FlavorSource, instanceTypes *instancetype.Provider, prices Prices, unavailable *instancetype.UnavailableOfferings, instances *instance.Provider, recorder events.EventRecorder) *CloudProvider {
	return &CloudProvider{kube: kube, clock: clock.RealClock{}, flavors: flavors, instanceTypes: instanceTypes, prices: prices, unavailable: unavailable, instances: instances, recorder: recorder, zones: newZoneSpread(),
		attempts: uidcache.Cache[time.Time]{TTL: forgetAttemptsAfter}}
}

// listInstanceTypes lists a node class's instance types priced with the current overrides.
// Bad override entries or kubelet settings are logged and skipped, never fatal.
func (p *CloudProvider) listInstanceTypes(ctx context.Context, nodeClass *kcv1.KCNodeClass) ([]*cloudprovider.InstanceType, error) {
	if p.prices.Overrides.Reader != nil {
		overrides, err := p.prices.Overrides.Load(ctx)
		if err != nil {
			log.FromContext(ctx).Error(err, "ignoring invalid relative cost overrides", "configMap", p.prices.Overrides.ConfigMap)
		}
		if overrides != nil || err == nil {
			p.prices.Table.SetOverrides(overrides)
		}
	}
	types, err := p.instanceTypes.List(ctx, nodeClass)
	if err != nil && types != nil {
		log.FromContext(ctx).Error(err, "ignoring invalid KCNodeClass kubelet settings", "KCNodeClass", klog.KObj(nodeClass))
		err = nil
	}
	return types, err
}

// UnavailableOfferings are the offerings launches found without capacity, avoided for a while.
func (p *CloudProvider) UnavailableOfferings() *instancetype.UnavailableOfferings {
	return p.unavailable
}

// Name identifies the provider.
func (p *CloudProvider) Name() string { return "kakaocloud" }

// Create launches (or adopts) the NodeClaim's VM.
func (p *CloudProvider) Create(ctx context.Context, nodeClaim *karpv1.NodeClaim) (_ *karpv1.NodeClaim, err error) {
	defer func() { err = throttled(err) }()
	nodeClass, err := p.readyNodeClass(ctx, nodeClaim.Spec.NodeClassRef)
	if err != nil {
		return nil, err
	}
	types, err := p.listInstanceTypes(ctx, nodeClass)
	if err != nil {
		return nil, fmt.Errorf("listing instance types: %w", err)
	}
	flavors, err := p.flavors.Flavors(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing flavors: %w", err)
	}
	var candidates []instance.Candidate
	var byName map[string]*cloudprovider.InstanceType
	var why string
	if err := p.zones.order(ctx, p.kube, nodeClaim, func(counted loads) placement {
		candidates, byName, why = launchCandidates(nodeClaim, nodeClass, types, flavors, counted)
		if len(candidates) == 0 {
			return placement{}
		}
		return placement{zone: candidates[0].Zone, subnet: candidates[0].SubnetID}
	}); err != nil {
		return nil, fmt.Errorf("counting the NodeClaims by zone and subnet: %w", err)
	}
	if len(candidates) == 0 {
		return nil, &cloudprovider.InsufficientCapacityError{Err: fmt.Errorf("no instance type can be launched for the NodeClaim: %s", why)}
	}
	req := instance.LaunchRequest{
		NodeClaim:      nodeClaim.Name,
		Candidates:     candidates,
		KeyName:        nodeClass.Spec.KeyPairName,
		RootVolumeGiB:  int(nodeClass.Spec.RootVolume.SizeGiB),
		RootVolumeType: nodeClass.Spec.RootVolume.TypeID,
		OnInsufficientCapacity: func(c instance.Candidate, err error) {
			p.unavailable.MarkUnavailable(c.FlavorName, c.Zone, karpv1.CapacityTypeOnDemand, err.Error())
		},
		LastAttempt: p.lastAttempt(nodeClaim),
		RecordAttempt: func(ctx context.Context, at time.Time) error {
			return p.recordAttempt(ctx, nodeClaim, at)
		},
	}
	for _, sg := range nodeClass.Status.SecurityGroups {
		req.SecurityGroups = append(req.SecurityGroups, sg.Name)
	}
	if err := p.addUserData(ctx, nodeClaim, nodeClass, candidates, byName); err != nil {
		return nil, err
	}
	launched, err := p.instances.Launch(ctx, req)
	if err != nil {
		if _, ok := errors.AsType[*instance.InsufficientCapacityError](err); ok {
			return nil, &cloudprovider.InsufficientCapacityError{Err: err}
		}
		if pending, ok := errors.AsType[*instance.CreatePendingError](err); ok {
			return nil, &cloudprovider.CreatePendingError{Until: pending.Until, Err: err}
		}
		return nil, fmt.Errorf("launching a VM: %w", err)
	}
	p.rememberAttempt(nodeClaim, time.Time{})
	p.zones.launched(nodeClaim, placement{zone: launched.Candidate.Zone, subnet: launched.Candidate.SubnetID})
	if launched.Adopted {
		log.FromContext(ctx).Info("adopted the VM an earlier launch created", "instance", launched.Instance.ID)
	}
	out := toNodeClaim(launched.Instance, byName[launched.Candidate.FlavorName])
	metav1.SetMetaDataAnnotation(&out.ObjectMeta, kcv1.AnnotationKubernetesVersion, nodeClass.Spec.Bootstrap.KubernetesVersion)
	metav1.SetMetaDataAnnotation(&out.ObjectMeta, kcv1.AnnotationSubnetID, launched.Candidate.SubnetID)
	for _, key := range []string{kcv1.AnnotationNodeClassHash, kcv1.AnnotationNodeClassHashVersion} {
		if v, ok := nodeClass.Annotations[key]; ok {
			metav1.SetMetaDataAnnotation(&out.ObjectMeta, key, v)
		}
	}
	out.Labels[kcv1.LabelNodeClass] = nodeClass.Name
	return out, nil
}

// addUserData gives each candidate the user data of its VM: the join script as its instance
// type, or the KCNodeClass's own user data alone when there is no way to join a node.
func (p *CloudProvider) addUserData(ctx context.Context, nodeClaim *karpv1.NodeClaim, nodeClass *kcv1.KCNodeClass, candidates []instance.Candidate, byName map[string]*cloudprovider.InstanceType) error {
	if p.bootstrap == nil {
		for i := range candidates {
			candidates[i].UserData = ptr.Deref(nodeClass.Spec.UserData, "")
		}
		return nil
	}
	script, err := p.bootstrap.UserData(ctx, nodeClaim, nodeClass)
	if err != nil {
		return fmt.Errorf("writing the join script: %w", err)
	}
	// A flavor is offered in several zones: its script is the same in each.
	scripts := map[string]string{}
	for i, c := range candidates {
		userData, ok := scripts[c.FlavorName]
		if !ok {
			if userData, err = script(byName[c.FlavorName]); err != nil {
				return fmt.Errorf("writing the join script for %s: %w", c.FlavorName, err)
			}
			scripts[c.FlavorName] = userData
		}
		candidates[i].UserData = userData
	}
	return nil
}

// readyNodeClass returns the NodeClaim's KCNodeClass if it can launch nodes.
func (p *CloudProvider) readyNodeClass(ctx context.Context, ref *karpv1.NodeClassReference) (*kcv1.KCNodeClass, error) {
	if ref == nil || ref.Kind != "KCNodeClass" || ref.Group != kcv1.Group {
		return nil, &cloudprovider.NodeClassNotReadyError{Err: fmt.Errorf("nodeClassRef %v is not a KCNodeClass", ref)}
	}
	nodeClass := &kcv1.KCNodeClass{}
	if err := p.kube.Get(ctx, client.ObjectKey{Name: ref.Name}, nodeClass); err != nil {
		if !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("reading KCNodeClass %s: %w", ref.Name, err) // retried
		}
		return nil, &cloudprovider.NodeClassNotReadyError{Err: fmt.Errorf("KCNodeClass %s does not exist", ref.Name)}
	}
	if !nodeClass.DeletionTimestamp.IsZero() {
		return nil, &cloudprovider.NodeClassNotReadyError{Err: fmt.Errorf("KCNodeClass %s is being deleted", ref.Name)}
	}
	ready := meta.FindStatusCondition(nodeClass.Status.Conditions, kcv1.ConditionTypeReady)
	if ready == nil || ready.Status == metav1.ConditionUnknown {
		// A KCNodeClass just created (or being resolved) is not refused, as upstream's
		// providers do not refuse one in Ready=Unknown: the launch is tried again, and the
		// NodeClaim goes only if it turns out not ready.
		why := "its status is not known yet"
		if ready != nil {
			why = ready.Reason + ": " + ready.Message
		}
		return nil, fmt.Errorf("KCNodeClass %s is not resolved yet (%s); trying again", ref.Name, why)
	}
	if ready.Status != metav1.ConditionTrue {
		return nil, &cloudprovider.NodeClassNotReadyError{Err: fmt.Errorf("KCNodeClass %s is not ready: %s: %s", ref.Name, ready.Reason, ready.Message)}
	}
	if ready.ObservedGeneration != 0 && ready.ObservedGeneration < nodeClass.Generation {
		// The spec changed (a new Kubernetes version, say) and the status still describes the
		// old one: launching now could boot the old version's image under the new version's
		// labels. This passes within a reconcile, so it is retried rather than refused.
		return nil, fmt.Errorf("KCNodeClass %s changed (generation %d) and its status is still for generation %d; waiting for it to be recomputed",
			ref.Name, nodeClass.Generation, ready.ObservedGeneration)
	}
	return nodeClass, nil
}

// launchCandidates lists the (instance type, zone) pairs that satisfy the NodeClaim, cheapest
// first and, of equal prices, in the zone with the fewest of the NodePool's NodeClaims
// (counted.zones) first, each with the subnet (the zone's with the most addresses left) and
// image it would launch with. When there are none, why says what ruled them out.
func launchCandidates(nodeClaim *karpv1.NodeClaim, nodeClass *kcv1.KCNodeClass, types []*cloudprovider.InstanceType, flavors []kakaocloud.Flavor, counted loads) ([]instance.Candidate, map[string]*cloudprovider.InstanceType, string) {
	byName := map[string]*cloudprovider.InstanceType{}
	flavorIDs := map[string]string{}
	for _, f := range flavors {
		flavorIDs[f.Name] = f.ID
	}
	selector, err := requirementsSelector(nodeClaim.Spec.Requirements)
	if err != nil {
		return nil, byName, err.Error()
	}
	type priced struct {
		instance.Candidate
		price float64
	}
	var found []priced
	var tooSmall, noOffering, noImage int
	for _, it := range types {
		byName[it.Name] = it
		if !fits(nodeClaim.Spec.Resources.Requests, it.Allocatable()) {
			tooSmall++
			continue
		}
		image, ok := imageFor(nodeClass, it)
		if !ok {
			noImage++
			continue
		}
		matched := false
		for _, of := range it.Offerings.Available() {
			labels := map[string]string{}
			maps.Copy(labels, nodeClaim.Labels)
			maps.Copy(labels, it.Labels)
			labels[karpv1.LabelTopologyZone] = of.Zone
			labels[karpv1.LabelCapacityType] = of.CapacityType
			labels[kcv1.LabelNodeClass] = nodeClass.Name
			if !matches(selector, labels) {
				continue
			}
			subnet, ok := subnetIn(nodeClass, of.Zone, counted.subnets)
			if !ok || flavorIDs[it.Name] == "" {
				continue
			}
			matched = true
			found = append(found, priced{Candidate: instance.Candidate{
				FlavorID: flavorIDs[it.Name], FlavorName: it.Name, Zone: of.Zone, SubnetID: subnet, ImageID: image,
			}, price: of.Price})
		}
		if !matched {
			noOffering++
		}
	}
	slices.SortStableFunc(found, func(a, b priced) int {
		return cmp.Or(cmp.Compare(a.price, b.price), cmp.Compare(counted.zones[a.Zone], counted.zones[b.Zone]),
			strings.Compare(a.FlavorName+"/"+a.Zone, b.FlavorName+"/"+b.Zone))
	})
	if len(found) > MaxLaunchCandidates {
		found = found[:MaxLaunchCandidates]
	}
	out := make([]instance.Candidate, len(found))
	for i, f := range found {
		out[i] = f.Candidate
	}
	why := fmt.Sprintf("of %d instance types, %d are too small for the requested resources, %d have no worker image, %d have no available offering that meets the requirements in the zones of the KCNodeClass's subnets",
		len(types), tooSmall, noImage, noOffering)
	return out, byName, why
}

func fits(requests, allocatable corev1.ResourceList) bool {
	for name, q := range requests {
		if a, ok := allocatable[name]; !ok || a.Cmp(q) < 0 {
			if q.IsZero() {
				continue
			}
			return false
		}
	}
	return true
}

// imageFor picks the node class image for an instance type: the pinned image, or the image of
// the type's architecture, with GPU drivers for GPU types.
func imageFor(nodeClass *kcv1.KCNodeClass, it *cloudprovider.InstanceType) (string, bool) {
	if nodeClass.Spec.ImageID != "" {
		return nodeClass.Spec.ImageID, true
	}
	gpu := it.Labels[kcv1.LabelInstanceGPUCount] != "" && it.Labels[kcv1.LabelInstanceGPUCount] != "0"
	arch := it.Labels[karpv1.LabelArch]
	for _, img := range nodeClass.Status.Images {
		if normalizeArch(img.Architecture) == arch && img.GPU == gpu {
			return img.ID, true
		}
	}
	return "", false
}

func normalizeArch(a string) string {
	switch strings.ToLower(a) {
	case "x86_64", "amd64":
		return "amd64"
	case "aarch64", "arm64":
		return "arm64"
	}
	return strings.ToLower(a)
}

// subnetIn is the KCNodeClass's subnet of the zone with the most addresses left, by
// freeAddresses; of equal ones, the first in the KCNodeClass's status.
func subnetIn(nodeClass *kcv1.KCNodeClass, zone string, used map[string]int) (string, bool) {
	best, bestFree, found := "", 0, false
	for _, s := range nodeClass.Status.Subnets {
		if s.Zone != zone {
			continue
		}
		if free := freeAddresses(s, used[s.ID]); !found || free > bestFree {
			best, bestFree, found = s.ID, free, true
		}
	}
	return best, found
}

// freeAddresses estimates a subnet's addresses left: those of its range less the used ones
// (this cluster's VMs in it). KakaoCloud neither reports a subnet's free addresses nor what
// other users hold in it, and keeps a few of each range for itself, the same few in every
// subnet (assumption A24): the estimate orders subnets, it does not promise an address. A
// subnet whose range is not known counts only its used addresses, against none.
func freeAddresses(s kcv1.Subnet, used int) int {
	prefix, err := netip.ParsePrefix(s.CIDRBlock)
	if err != nil || !prefix.Addr().Is4() {
		return -used
	}
	return 1<<(32-prefix.Bits()) - used
}

// toNodeClaim describes a VM as a NodeClaim: labels of its type, zone and signing key,
// provider id, image, capacity and allocatable.
func toNodeClaim(inst kakaocloud.Instance, it *cloudprovider.InstanceType) *karpv1.NodeClaim {
	nodeClaim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: inst.Name, Labels: map[string]string{}}}
	if it != nil {
		maps.Copy(nodeClaim.Labels, it.Labels)
		nodeClaim.Status.Capacity = it.Capacity.DeepCopy()
		nodeClaim.Status.Allocatable = it.Allocatable()
	} else {
		nodeClaim.Labels[karpv1.LabelInstanceType] = inst.Flavor.Name
		nodeClaim.Labels[kcv1.LabelInstanceCPU] = strconv.Itoa(inst.Flavor.VCPUs)
	}
	nodeClaim.Labels[karpv1.LabelTopologyZone] = inst.AvailabilityZone
	nodeClaim.Labels[karpv1.LabelCapacityType] = karpv1.CapacityTypeOnDemand
	if marker, ok := signing.ParseMarker(inst.Description); ok {
		nodeClaim.Labels[kcv1.LabelSigningKey] = marker.KeyID
	}
	nodeClaim.Status.ProviderID = cloudprovider.ProviderID(inst.ID)
	nodeClaim.Status.ImageID = inst.Image.ID
	nodeClaim.CreationTimestamp = metav1.NewTime(inst.CreatedAt)
	return nodeClaim
}

// throttled makes a KakaoCloud refusal for its rate limit the cloud provider's ThrottledError,
// with the wait it asked for (capped by the client), so that the generic controllers wait as
// asked instead of failing; other errors are returned as they are.
func throttled(err error) error {
	if err == nil || kakaocloud.KindOf(err) != kakaocloud.ErrRateLimited {
		return err
	}
	return &cloudprovider.ThrottledError{RetryAfter: kakaocloud.RetryAfterOf(err), Err: err}
}

// instanceID reads a KakaoCloud provider id.
func instanceID(providerID string) (string, error) {
	id, ok := strings.CutPrefix(providerID, kcv1.ProviderIDPrefix)
	if !ok || id == "" {
		return "", fmt.Errorf("provider id %q is not a KakaoCloud one (%s<instance id>)", providerID, kcv1.ProviderIDPrefix)
	}
	return id, nil
}

// Delete deletes the NodeClaim's VM once its ownership is proven.
func (p *CloudProvider) Delete(ctx context.Context, nodeClaim *karpv1.NodeClaim) (err error) {
	defer func() { err = throttled(err) }()
	id, err := instanceID(nodeClaim.Status.ProviderID)
	if err != nil {
		// No KakaoCloud VM has such an id: there is nothing of ours to delete.
		return &cloudprovider.NodeClaimNotFoundError{Err: err}
	}
	if err := p.instances.Delete(ctx, id, nodeClaim.Name); err != nil {
		if errors.Is(err, kakaocloud.ErrNotFound) {
			return &cloudprovider.NodeClaimNotFoundError{Err: err}
		}
		if errors.Is(err, instance.ErrNotOwned) {
			ownershipUnverified(p.recorder, nodeClaim, id, err)
		}
		return fmt.Errorf("deleting VM %s: %w", id, err)
	}
	return nil
}

// Get returns the NodeClaim of a VM.
func (p *CloudProvider) Get(ctx context.Context, providerID string) (_ *karpv1.NodeClaim, err error) {
	defer func() { err = throttled(err) }()
	id, err := instanceID(providerID)
	if err != nil {
		// No KakaoCloud VM has such an id, as upstream's providers answer for an id that is not
		// theirs: a NodeClaim that records one is garbage collected.
		return nil, &cloudprovider.NodeClaimNotFoundError{Err: err}
	}
	inst, err := p.instances.Get(ctx, id)
	if err != nil {
		if errors.Is(err, kakaocloud.ErrNotFound) {
			return nil, &cloudprovider.NodeClaimNotFoundError{Err: err}
		}
		return nil, fmt.Errorf("looking up the NodeClaim's VM: %w", err)
	}
	if strings.EqualFold(inst.Status, kakaocloud.InstanceStatusDeleting) {
		return nil, &cloudprovider.NodeClaimNotFoundError{Err: fmt.Errorf("VM %s is being deleted", id)}
	}
	return toNodeClaim(inst, nil), nil
}

// List returns the NodeClaims of every VM this cluster owns.
func (p *CloudProvider) List(ctx context.Context) ([]*karpv1.NodeClaim, error) {
	owned, err := p.instances.List(ctx)
	if err != nil {
		return nil, throttled(err)
	}
	out := make([]*karpv1.NodeClaim, 0, len(owned))
	for _, o := range owned {
		if !strings.EqualFold(o.Instance.Status, kakaocloud.InstanceStatusDeleting) {
			out = append(out, toNodeClaim(o.Instance, nil))
		}
	}
	return out, nil
}

// GetInstanceTypes returns the instance types of the NodePool's KCNodeClass.
func (p *CloudProvider) GetInstanceTypes(ctx context.Context, np *karpv1.NodePool) ([]*cloudprovider.InstanceType, error) {
	ref := np.Spec.Template.Spec.NodeClassRef
	if ref == nil {
		return nil, errors.New("the NodePool has no nodeClassRef")
	}
	nodeClass := &kcv1.KCNodeClass{}
	if err := p.kube.Get(ctx, client.ObjectKey{Name: ref.Name}, nodeClass); err != nil {
		return nil, fmt.Errorf("reading KCNodeClass %s: %w", ref.Name, err)
	}
	return p.listInstanceTypes(ctx, nodeClass)
}

// IsDrifted compares a NodeClaim's VM with its KCNodeClass as it is now.
func (p *CloudProvider) IsDrifted(ctx context.Context, nodeClaim *karpv1.NodeClaim) (cloudprovider.Drift, error) {
	nodeClass := &kcv1.KCNodeClass{}
	if err := p.kube.Get(ctx, client.ObjectKey{Name: nodeClaim.Spec.NodeClassRef.Name}, nodeClass); err != nil {
		if apierrors.IsNotFound(err) {
			return cloudprovider.Drift{}, nil
		}
		return cloudprovider.Drift{}, fmt.Errorf("reading KCNodeClass %s: %w", nodeClaim.Spec.NodeClassRef.Name, err)
	}
	id, err := instanceID(nodeClaim.Status.ProviderID)
	if err != nil {
		return cloudprovider.Drift{}, err
	}
	// Every NodeClaim is asked whenever its KCNodeClass's status moves (its node counts do, as
	// nodes come and go): one shared listing a few seconds old answers them all, where a get
	// per NodeClaim made hundreds of calls a minute.
	inst, err := p.listedOrGot(ctx, id)
	if err != nil {
		return cloudprovider.Drift{}, err
	}
	reason := driftOf(nodeClaim, nodeClass, inst)
	if reason == "" {
		return cloudprovider.Drift{}, nil
	}
	return cloudprovider.Drift{Reason: reason, Message: DriftMessage(reason, nodeClaim, nodeClass)}, nil
}

// driftOf is the drift decision: the first difference found, in the order a user would fix
// them.
func driftOf(nodeClaim *karpv1.NodeClaim, nodeClass *kcv1.KCNodeClass, inst kakaocloud.Instance) cloudprovider.DriftReason {
	if SpecDrift(nodeClaim, nodeClass) == DriftKubernetesVersion {
		return DriftKubernetesVersion
	}
	if len(nodeClass.Status.Images) > 0 && !slices.ContainsFunc(nodeClass.Status.Images, func(i kcv1.Image) bool { return i.ID == inst.Image.ID }) {
		return DriftImage
	}
	if s, ok := nodeClaim.Annotations[kcv1.AnnotationSubnetID]; ok && len(nodeClass.Status.Subnets) > 0 &&
		!slices.ContainsFunc(nodeClass.Status.Subnets, func(sub kcv1.Subnet) bool { return sub.ID == s }) {
		return DriftSubnet
	}
	if len(nodeClass.Status.SecurityGroups) > 0 {
		want, have := []string{}, []string{}
		for _, sg := range nodeClass.Status.SecurityGroups {
			want = append(want, sg.Name)
		}
		for _, sg := range inst.SecurityGroups {
			have = append(have, sg.Name)
		}
		slices.Sort(want)
		slices.Sort(have)
		if !slices.Equal(slices.Compact(want), slices.Compact(have)) {
			return DriftSecurityGroup
		}
	}
	return SpecDrift(nodeClaim, nodeClass)
}

// SpecDrift is the drift a KCNodeClass's spec alone decides, without its resolved status or
// the VM: its Kubernetes version, then the hash of the rest of its spec, which nodeClass's
// annotations carry (StaticHash). What a spec edit would drift is known from it before the
// edit is applied.
func SpecDrift(nodeClaim *karpv1.NodeClaim, nodeClass *kcv1.KCNodeClass) cloudprovider.DriftReason {
	if v, ok := nodeClaim.Annotations[kcv1.AnnotationKubernetesVersion]; ok && v != nodeClass.Spec.Bootstrap.KubernetesVersion {
		return DriftKubernetesVersion
	}
	if nodeClaim.Annotations[kcv1.AnnotationNodeClassHashVersion] == nodeClass.Annotations[kcv1.AnnotationNodeClassHashVersion] &&
		nodeClaim.Annotations[kcv1.AnnotationNodeClassHash] != "" && nodeClaim.Annotations[kcv1.AnnotationNodeClassHash] != nodeClass.Annotations[kcv1.AnnotationNodeClassHash] {
		return DriftNodeClass
	}
	return ""
}

// Components are what a CloudProvider is assembled from.
type Components struct {
	Kube client.Client
	// Clock tells the time of launch attempts; the real clock when nil.
	Clock   clock.PassiveClock
	Client  *kakaocloud.Client
	Catalog *catalog.Catalog
	Keyring signing.KeyringSource
	// ClusterName is the Kubernetes Engine cluster, also the owner written in VM markers.
	ClusterName string
	// PriceOverrides is the operators' ConfigMap of relative costs; none when its Reader is nil.
	PriceOverrides instancetype.PriceOverrideSource
	Recorder       events.EventRecorder
	// Bootstrap writes the join script; without it VMs get only the KCNodeClass's user data
	// (for clusters whose images join by themselves, and for tests).
	Bootstrap Bootstrapper
	// Repair sets the repair policies' tolerations.
	Repair RepairTolerations
}

// Assemble builds the KakaoCloud cloud provider and the instance provider it launches with
// (garbage collection shares the latter).
func Assemble(c Components) (*CloudProvider, *instance.Provider) {
	clk := cmp.Or[clock.PassiveClock](c.Clock, clock.RealClock{})
	unavailable := instancetype.NewUnavailableOfferings(0, clk)
	prices := Prices{Table: instancetype.NewPriceTable(), Overrides: c.PriceOverrides}
	instances := instance.NewProvider(c.Client, c.Keyring, c.ClusterName, instance.Options{Clock: clk})
	p := New(c.Kube, c.Catalog, instancetype.NewProvider(c.Catalog, prices.Table, unavailable), prices, unavailable, instances, c.Recorder)
	p.bootstrap, p.clock, p.repair = c.Bootstrap, clk, c.Repair
	return p, instances
}
