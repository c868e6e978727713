/*
Copyright 2026 The karpenter-provider-kakaocloud Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package instance launches, finds and deletes the KakaoCloud VMs behind NodeClaims. It is
// the only code that creates or deletes VMs, and it proves ownership of each one with a
// signed marker in the VM's description: KakaoCloud has no tags, names are not unique and
// creates have no idempotency key, so the marker is what keeps a retry from making a second
// VM and the controller from deleting a VM that is not its own.
package instance

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
)

// ErrNotOwned refuses to touch a VM whose marker does not verify: renamed, description
// edited, made by hand, or another cluster's.
var ErrNotOwned = errors.New("the VM's name and description do not prove that this cluster owns it")

// Provider launches and deletes VMs.
type Provider struct {
	client    *kakaocloud.Client
	keyring   signing.KeyringSource
	clusterID string
}

// NewProvider returns a Provider for the cluster; clusterName is the Kubernetes Engine
// cluster's name.
func NewProvider(client *kakaocloud.Client, keyring signing.KeyringSource, clusterName string) *Provider {
	return &Provider{client: client, keyring: keyring, clusterID: SigningClusterID(clusterName)}
}

// Candidate is one way to launch a NodeClaim: a flavor in a zone's subnet with an image.
type Candidate struct {
	FlavorID   string
	FlavorName string
	Zone       string
	SubnetID   string
	ImageID    string
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
	UserData       string
	// OnInsufficientCapacity is told about each candidate that had no capacity, so that it
	// is avoided for a while.
	OnInsufficientCapacity func(Candidate, error)
}

// Launched is the VM a launch created or adopted.
type Launched struct {
	Instance  kakaocloud.Instance
	Candidate Candidate
	// Adopted is true when the VM existed already: an earlier launch for the same NodeClaim
	// created it and its result was lost (a crash, a timeout).
	Adopted bool
}

// Launch returns the NodeClaim's VM, creating it if this cluster has none yet. A VM of the
// same name that does not verify is never adopted.
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
	description, err := keyring.Sign(signing.Subject{VMName: name, ClusterID: p.clusterID, NodeClaim: req.NodeClaim})
	if err != nil {
		return Launched{}, err
	}

	var capacityErrs []error
	for _, c := range req.Candidates {
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
			// The VM may have been made before the answer was lost: look before failing, so
			// that the retry adopts it rather than making a second.
			if existing, ok, lookupErr := p.findOwned(ctx, keyring, name, req.NodeClaim); lookupErr == nil && ok {
				return p.adopted(existing, req), nil
			}
			return Launched{}, err
		default:
			return Launched{}, err
		}
	}
	return Launched{}, &InsufficientCapacityError{Err: errors.Join(capacityErrs...)}
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
		Volumes: []kakaocloud.VolumeSpec{{
			Size: req.RootVolumeGiB, SourceType: "image", UUID: c.ImageID, TypeID: req.RootVolumeType,
			// The root volume goes with the VM: nothing is left behind to bill.
			IsDeleteOnTermination: true,
		}},
		SecurityGroups: sgs,
		KeyName:        req.KeyName,
	}
	if req.UserData != "" {
		ci.UserData = base64.StdEncoding.EncodeToString([]byte(req.UserData))
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
// verifies; VMs of the same name that do not verify are someone else's and are left alone.
func (p *Provider) findOwned(ctx context.Context, keyring *signing.Keyring, name, nodeClaim string) (kakaocloud.Instance, bool, error) {
	candidates, err := p.client.FindInstancesByName(ctx, name)
	if err != nil {
		return kakaocloud.Instance{}, false, err
	}
	for _, inst := range candidates {
		if deleting(inst) {
			continue
		}
		if _, err := keyring.Verify(inst.Description, signing.Subject{VMName: inst.Name, ClusterID: p.clusterID, NodeClaim: nodeClaim}); err != nil {
			log.FromContext(ctx).Info("ignoring a VM with the NodeClaim's name that this cluster cannot prove it owns",
				"instance", inst.ID, "name", inst.Name, "reason", err.Error())
			continue
		}
		return inst, true, nil
	}
	return kakaocloud.Instance{}, false, nil
}

func deleting(inst kakaocloud.Instance) bool {
	return strings.EqualFold(inst.Status, kakaocloud.InstanceStatusDeleting)
}

// Get returns a VM by id.
func (p *Provider) Get(ctx context.Context, id string) (kakaocloud.Instance, error) {
	return p.client.GetInstance(ctx, id)
}

// Owned is a VM this cluster owns, with the key that signed it.
type Owned struct {
	Instance kakaocloud.Instance
	KeyID    string
}

// List returns every VM whose marker proves this cluster owns it (the NodeClaim being the
// VM's name, as for every VM this controller names), and records how many VMs each signing
// key still covers.
func (p *Provider) List(ctx context.Context) ([]Owned, error) {
	keyring, err := p.keyring.Keyring(ctx)
	if err != nil {
		return nil, err
	}
	all, err := p.client.ListInstances(ctx, kakaocloud.InstanceFilter{})
	if err != nil {
		return nil, err
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
		keyID, err := keyring.Verify(inst.Description, signing.Subject{VMName: inst.Name, ClusterID: p.clusterID, NodeClaim: inst.Name})
		if err != nil {
			log.FromContext(ctx).Info("VM carries this cluster's marker but does not verify; it will not be touched",
				"instance", inst.ID, "name", inst.Name, "reason", err.Error())
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
		return err
	}
	if _, err := keyring.Verify(inst.Description, signing.Subject{VMName: inst.Name, ClusterID: p.clusterID, NodeClaim: nodeClaim}); err != nil {
		log.FromContext(ctx).Error(err, "refusing to delete a VM this cluster cannot prove it owns; it is left running",
			"instance", inst.ID, "name", inst.Name, "nodeclaim", nodeClaim)
		return fmt.Errorf("refusing to delete VM %s (%s): %w: %w", inst.ID, inst.Name, ErrNotOwned, err)
	}
	if deleting(inst) {
		return nil
	}
	return p.client.DeleteInstance(ctx, id)
}

// FailureMessage is what the VM's action log says about its failure: the last message it
// holds ("" when none).
func (p *Provider) FailureMessage(ctx context.Context, id string) (string, error) {
	logs, err := p.client.ListInstanceActionLogs(ctx, id)
	if err != nil {
		return "", err
	}
	for i := len(logs) - 1; i >= 0; i-- {
		if logs[i].Message != "" {
			return logs[i].Message, nil
		}
	}
	return "", nil
}
