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

package instance

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
)

// ErrNotOwned refuses to touch a VM whose marker does not verify: renamed, description
// edited, made by hand, or another cluster's.
var ErrNotOwned = errors.New("the VM's name and description do not prove that this cluster owns it")

// DefaultLookupWindow is how long after a create whose outcome is unknown (its answer lost,
// a 5xx, a crash before its result was recorded) a launch keeps looking for the VM it may
// have made instead of creating another: it must outlast the delay before KakaoCloud lists a
// new VM (assumption A6). A VM that shows up later still is deleted by garbage collection.
const DefaultLookupWindow = 2 * time.Minute

// Provider launches and deletes VMs.
type Provider struct {
	client       *kakaocloud.Client
	keyring      signing.KeyringSource
	clusterID    string
	clock        clock.PassiveClock
	lookupWindow time.Duration
}

// Options tune a Provider; zero values mean the defaults.
type Options struct {
	// Clock tells the time of launch attempts; the real clock when nil.
	Clock clock.PassiveClock
	// LookupWindow replaces DefaultLookupWindow.
	LookupWindow time.Duration
}

// NewProvider returns a Provider for the cluster; clusterName is the Kubernetes Engine
// cluster's name.
func NewProvider(client *kakaocloud.Client, keyring signing.KeyringSource, clusterName string, opts Options) *Provider {
	return &Provider{
		client: client, keyring: keyring, clusterID: SigningClusterID(clusterName),
		clock: cmp.Or[clock.PassiveClock](opts.Clock, clock.RealClock{}), lookupWindow: cmp.Or(opts.LookupWindow, DefaultLookupWindow),
	}
}

// LookupWindow is how long a launch looks for the VM of a create whose outcome is unknown.
func (p *Provider) LookupWindow() time.Duration { return p.lookupWindow }

// subject is what a VM's marker is signed for. The NodeClaim is bound through the VM's name,
// which is derived from it (VMName), so that a VM can be verified from what it shows alone:
// garbage collection must prove a leftover is this cluster's once its NodeClaim is gone, and a
// rewritten name cannot be turned back into the NodeClaim's.
func (p *Provider) subject(vmName string) signing.Subject {
	return signing.Subject{VMName: vmName, ClusterID: p.clusterID, NodeClaim: vmName}
}

// verify checks a VM's marker against the cluster and the VM's name, and, given a NodeClaim,
// that the VM is named for it; for a NodeClaim whose
// VM name was rewritten, markers written before they were bound to the VM name (signed for
// the NodeClaim's own name) still verify.
func (p *Provider) verify(keyring *signing.Keyring, inst kakaocloud.Instance, nodeClaim string) (string, error) {
	if nodeClaim != "" && VMName(nodeClaim) != inst.Name {
		return "", fmt.Errorf("%w: VM %q is not named for NodeClaim %q (%q)", signing.ErrBadSignature, inst.Name, nodeClaim, VMName(nodeClaim))
	}
	keyID, err := keyring.Verify(inst.Description, p.subject(inst.Name))
	if err != nil && nodeClaim != "" && nodeClaim != inst.Name {
		if legacyKeyID, legacyErr := keyring.Verify(inst.Description, signing.Subject{VMName: inst.Name, ClusterID: p.clusterID, NodeClaim: nodeClaim}); legacyErr == nil {
			return legacyKeyID, nil
		}
	}
	return keyID, err
}

// Candidate is one way to launch a NodeClaim: a flavor in a zone's subnet with an image.
type Candidate struct {
	FlavorID   string
	FlavorName string
	Zone       string
	SubnetID   string
	ImageID    string
	// UserData is the VM's user data as this flavor: the join script tells the kubelet what
	// the flavor's model holds back.
	UserData string
}

// LaunchRequest is a VM to launch for a NodeClaim.
type LaunchRequest struct {
	NodeClaim string
	// Candidates in order of preference (cheapest first); the first that has capacity wins.
	Candidates     []Candidate
	SecurityGroups []string
	KeyName        string
	RootVolumeGiB  int
	RootVolumeType string
	// OnInsufficientCapacity is told about each candidate that had no capacity, so that it
	// is avoided for a while.
	OnInsufficientCapacity func(Candidate, error)
	// LastAttempt is when an earlier launch for the NodeClaim tried a create whose outcome is
	// not known (zero when none did): within the lookup window the launch only looks for the
	// VM that create may have made.
	LastAttempt time.Time
	// RecordAttempt durably records, before each create, when it is tried (the zero time
	// clears the record once no create is in doubt), so that a launch after a crash or a lost
	// answer knows to look first. A failure to record stops the launch before the create.
	RecordAttempt func(ctx context.Context, at time.Time) error
}

// CreatePendingError says a create for the NodeClaim may have made a VM that KakaoCloud does
// not list yet: the launch looks for it again until Until, and creates again only after.
type CreatePendingError struct {
	Until time.Time
	Err   error
}

func (e *CreatePendingError) Error() string {
	return fmt.Sprintf("a create for this NodeClaim may have made a VM that is not listed yet; looking for it until %s before creating another: %v",
		e.Until.UTC().Format(time.RFC3339), e.Err)
}
func (e *CreatePendingError) Unwrap() error { return e.Err }

// Launched is the VM a launch created or adopted.
type Launched struct {
	Instance  kakaocloud.Instance
	Candidate Candidate
	// Adopted is true when the VM existed already: an earlier launch for the same NodeClaim
	// created it and its result was lost (a crash, a timeout).
	Adopted bool
}

// Launch returns the NodeClaim's VM, creating it if this cluster has none yet. A VM of the
// same name that does not verify is never adopted. A create whose outcome is unknown is never
// followed by another until the lookup window has passed without the VM showing up.
//
//nolint:gocyclo // the idempotent launch: find, verify, wait out an unknown create, try each candidate offering; the branches are the cases a lost answer leaves
func (p *Provider) Launch(ctx context.Context, req LaunchRequest) (Launched, error) {
	if len(req.Candidates) == 0 {
		return Launched{}, errors.New("no instance type candidates to launch")
	}
	keyring, err := p.keyring.Keyring(ctx)
	if err != nil {
		return Launched{}, err
	}
	name := VMName(req.NodeClaim)
	if existing, ok, err := p.findOwned(ctx, keyring, name, req.NodeClaim); err != nil || ok {
		return p.adopted(existing, req), err
	}
	if until := req.LastAttempt.Add(p.lookupWindow); !req.LastAttempt.IsZero() && p.clock.Now().Before(until) {
		return Launched{}, &CreatePendingError{Until: until, Err: fmt.Errorf("no VM named %s is listed yet", name)}
	}
	description, err := keyring.Sign(p.subject(name))
	if err != nil {
		return Launched{}, fmt.Errorf("signing the marker of VM %s: %w", name, err)
	}

	var capacityErrs []error
	for _, c := range req.Candidates {
		attempt := p.clock.Now()
		if req.RecordAttempt != nil {
			if err := req.RecordAttempt(ctx, attempt); err != nil {
				return Launched{}, fmt.Errorf("recording the launch attempt before creating the VM: %w", err)
			}
		}
		created, err := p.client.CreateInstance(ctx, p.createRequest(name, description, c, req))
		switch {
		case err == nil:
			return Launched{Instance: p.describe(ctx, created.ID, name, description, c), Candidate: c}, nil
		case errors.Is(err, kakaocloud.ErrInsufficientCapacity) || errors.Is(err, kakaocloud.ErrQuotaExceeded):
			capacityErrs = append(capacityErrs, fmt.Errorf("%s in %s: %w", c.FlavorName, c.Zone, err))
			if req.OnInsufficientCapacity != nil {
				req.OnInsufficientCapacity(c, err)
			}
			continue
		case ambiguous(err):
			// The VM may have been made before the answer was lost: look before failing, and
			// leave the attempt recorded, so that the next launch looks again rather than
			// making a second VM while KakaoCloud does not list the first yet.
			if existing, ok, lookupErr := p.findOwned(ctx, keyring, name, req.NodeClaim); lookupErr == nil && ok {
				return p.adopted(existing, req), nil
			}
			return Launched{}, &CreatePendingError{Until: attempt.Add(p.lookupWindow), Err: err}
		default:
			p.clearAttempt(ctx, req)
			return Launched{}, fmt.Errorf("creating VM %s as %s in %s: %w", name, c.FlavorName, c.Zone, err)
		}
	}
	p.clearAttempt(ctx, req)
	return Launched{}, &InsufficientCapacityError{Err: errors.Join(capacityErrs...)}
}

// clearAttempt records that no create is in doubt after every create was refused outright.
// Failing to clear only makes the next launch wait out the lookup window.
func (p *Provider) clearAttempt(ctx context.Context, req LaunchRequest) {
	if req.RecordAttempt == nil {
		return
	}
	if err := req.RecordAttempt(ctx, time.Time{}); err != nil {
		log.FromContext(ctx).Error(err, "clearing the launch attempt record; the next launch waits out the lookup window", "nodeclaim", req.NodeClaim)
	}
}

// InsufficientCapacityError says no candidate had capacity.
type InsufficientCapacityError struct{ Err error }

func (e *InsufficientCapacityError) Error() string {
	return "no candidate instance type had capacity: " + e.Err.Error()
}
func (e *InsufficientCapacityError) Unwrap() error { return e.Err }

// ambiguous errors leave open whether the server acted on the request.
func ambiguous(err error) bool {
	kind := kakaocloud.KindOf(err)
	return kind == "" || kind == kakaocloud.ErrServer
}

func (p *Provider) createRequest(name, description string, c Candidate, req LaunchRequest) kakaocloud.CreateInstance {
	sgs := make([]kakaocloud.SecurityGroupRef, 0, len(req.SecurityGroups))
	for _, sg := range req.SecurityGroups {
		sgs = append(sgs, kakaocloud.SecurityGroupRef{Name: sg})
	}
	ci := kakaocloud.CreateInstance{
		Name:             name,
		Description:      description,
		ImageID:          c.ImageID,
		FlavorID:         c.FlavorID,
		AvailabilityZone: c.Zone,
		Subnets:          []kakaocloud.SubnetAttachment{{ID: c.SubnetID}},
		Volumes:          []kakaocloud.VolumeSpec{kakaocloud.BootVolume(req.RootVolumeGiB, req.RootVolumeType)},
		SecurityGroups:   sgs,
		KeyName:          req.KeyName,
	}
	if c.UserData != "" {
		ci.UserData = base64.StdEncoding.EncodeToString([]byte(c.UserData))
	}
	return ci
}

// describe reads a VM just created; right after a create KakaoCloud may not list it yet, so
// what the create said stands in until it does.
func (p *Provider) describe(ctx context.Context, id, name, description string, c Candidate) kakaocloud.Instance {
	if inst, err := p.client.GetInstance(ctx, id); err == nil {
		return inst
	}
	return kakaocloud.Instance{
		ID: id, Name: name, Description: description, Status: kakaocloud.InstanceStatusBuilding,
		AvailabilityZone: c.Zone, Flavor: kakaocloud.InstanceFlavor{ID: c.FlavorID, Name: c.FlavorName},
		Image: kakaocloud.InstanceImage{ID: c.ImageID},
	}
}

func (p *Provider) adopted(existing kakaocloud.Instance, req LaunchRequest) Launched {
	l := Launched{Instance: existing, Adopted: true}
	for _, c := range req.Candidates {
		if c.FlavorID == existing.Flavor.ID && c.Zone == existing.AvailabilityZone {
			l.Candidate = c
			return l
		}
	}
	l.Candidate = Candidate{FlavorID: existing.Flavor.ID, FlavorName: existing.Flavor.Name, Zone: existing.AvailabilityZone, ImageID: existing.Image.ID}
	return l
}

// findOwned looks up the VM of a NodeClaim by exact name and returns the one whose marker
// verifies, the oldest when there are several; VMs of the same name that do not verify are
// someone else's and are left alone.
func (p *Provider) findOwned(ctx context.Context, keyring *signing.Keyring, name, nodeClaim string) (kakaocloud.Instance, bool, error) {
	candidates, err := p.client.FindInstancesByName(ctx, name)
	if err != nil {
		return kakaocloud.Instance{}, false, fmt.Errorf("looking for the VMs named %s: %w", name, err)
	}
	var owned []kakaocloud.Instance
	for _, inst := range candidates {
		if deleting(inst) {
			continue
		}
		if _, err := p.verify(keyring, inst, nodeClaim); err != nil {
			log.FromContext(ctx).Info("ignoring a VM with the NodeClaim's name that this cluster cannot prove it owns",
				"instance", inst.ID, "name", inst.Name, "reason", err.Error())
			continue
		}
		owned = append(owned, inst)
	}
	if len(owned) == 0 {
		return kakaocloud.Instance{}, false, nil
	}
	// Two VMs can exist only when a create's VM showed up after the lookup window; adopting
	// the oldest every time keeps every launch on the same one, and garbage collection
	// deletes the other once the NodeClaim records its VM.
	return slices.MinFunc(owned, func(a, b kakaocloud.Instance) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	}), true, nil
}

func deleting(inst kakaocloud.Instance) bool {
	return strings.EqualFold(inst.Status, kakaocloud.InstanceStatusDeleting)
}

// Get returns a VM by id.
func (p *Provider) Get(ctx context.Context, id string) (kakaocloud.Instance, error) {
	inst, err := p.client.GetInstance(ctx, id)
	if err != nil {
		return kakaocloud.Instance{}, fmt.Errorf("getting VM %s: %w", id, err)
	}
	return inst, nil
}

// Owned is a VM this cluster owns, with the key that signed it.
type Owned struct {
	Instance kakaocloud.Instance
	KeyID    string
}

// List returns every VM whose marker proves this cluster owns it, and records how many VMs
// each signing key still covers: every key of the ring, and a key no longer in the ring that
// VMs with this cluster's marker are still signed with.
func (p *Provider) List(ctx context.Context) ([]Owned, error) {
	keyring, err := p.keyring.Keyring(ctx)
	if err != nil {
		return nil, err
	}
	all, err := p.client.ListInstances(ctx, kakaocloud.InstanceFilter{})
	if err != nil {
		return nil, fmt.Errorf("reading the markers of the project's VMs: %w", err)
	}
	perKey := map[string]int{}
	for _, id := range keyring.KeyIDs() {
		perKey[id] = 0
	}
	var owned []Owned
	for _, inst := range all {
		marker, ok := signing.ParseMarker(inst.Description)
		if !ok || marker.ClusterID != p.clusterID {
			continue
		}
		keyID, err := p.verify(keyring, inst, "")
		if err != nil {
			log.FromContext(ctx).Info("VM carries this cluster's marker but does not verify; it will not be touched",
				"instance", inst.ID, "name", inst.Name, "reason", err.Error())
			if errors.Is(err, signing.ErrUnknownKey) {
				// Signed with a key the ring no longer holds: the VM still depends on it, and
				// the key's count says so, instead of reading 0 as "safe to remove".
				perKey[marker.KeyID]++
			}
			continue
		}
		perKey[keyID]++
		owned = append(owned, Owned{Instance: inst, KeyID: keyID})
	}
	signing.RecordInstancesBySigningKey(perKey)
	return owned, nil
}

// Delete starts deleting a NodeClaim's VM after proving the cluster owns it. It returns
// ErrNotOwned, and deletes nothing, when the proof fails, and a kakaocloud.ErrNotFound error
// when the VM is gone.
func (p *Provider) Delete(ctx context.Context, id, nodeClaim string) error {
	keyring, err := p.keyring.Keyring(ctx)
	if err != nil {
		return err
	}
	inst, err := p.client.GetInstance(ctx, id)
	if err != nil {
		return fmt.Errorf("reading its marker: %w", err)
	}
	if _, err := p.verify(keyring, inst, nodeClaim); err != nil {
		log.FromContext(ctx).Error(err, "refusing to delete a VM this cluster cannot prove it owns; it is left running",
			"instance", inst.ID, "name", inst.Name, "nodeclaim", nodeClaim)
		return fmt.Errorf("refusing to delete VM %s (%s): %w: %w", inst.ID, inst.Name, ErrNotOwned, err)
	}
	if deleting(inst) {
		return nil
	}
	if err := p.client.DeleteInstance(ctx, id); err != nil {
		return fmt.Errorf("asking for its deletion: %w", err)
	}
	return nil
}

// FailureMessage is what the VM's action log says about its failure: the last message it
// holds ("" when none).
func (p *Provider) FailureMessage(ctx context.Context, id string) (string, error) {
	logs, err := p.client.ListInstanceActionLogs(ctx, id)
	if err != nil {
		return "", fmt.Errorf("reading the action log of VM %s: %w", id, err)
	}
	for _, entry := range slices.Backward(logs) {
		if entry.Message != "" {
			return entry.Message, nil
		}
	}
	return "", nil
}
