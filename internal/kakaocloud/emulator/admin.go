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

package emulator

import (
	"cmp"
	"slices"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/version"
)

// capacityKey is a flavor in a zone, the unit SetCapacity limits.
type capacityKey struct {
	flavor string
	zone   string
}

// SetCapacity sets how many more instances of a flavor (by name) may be created in a zone.
// Once it is used up, creates are still accepted (202, as OpenStack-based clouds answer) but
// the instances go to error after BuildDelay with NoValidHostMessage in their action log.
// A negative remaining means unlimited, the default.
func (e *Emulator) SetCapacity(flavorName, zone string, remaining int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	key := capacityKey{flavor: flavorName, zone: zone}
	if remaining < 0 {
		delete(e.capacity, key)
		return
	}
	e.capacity[key] = remaining
}

// FailNextInstances makes the next n created instances go to error after BuildDelay, with
// message in their action log (a generic build failure when empty). It replaces an earlier
// call's count; n <= 0 cancels.
func (e *Emulator) FailNextInstances(n int, message string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.failNextCount = max(n, 0)
	e.failNextMessage = cmp.Or(message, defaultBuildFailureMessage)
}

// SetInstanceState puts an active instance in a state it gets into without this operator:
// kakaocloud.InstanceStatusStopped (someone shut it off) or kakaocloud.InstanceStatusError (its
// host failed). The stand-in kubelet of a local cluster stops with it.
func (e *Emulator) SetInstanceState(id, status string) error {
	if status != kakaocloud.InstanceStatusStopped && status != kakaocloud.InstanceStatusError {
		return badRequest("status %q is not %s or %s", status, kakaocloud.InstanceStatusStopped, kakaocloud.InstanceStatusError)
	}
	e.advance()
	e.mu.Lock()
	defer e.mu.Unlock()
	in, err := e.instanceLocked(id)
	if err != nil {
		return err
	}
	if in.Status != kakaocloud.InstanceStatusActive {
		return badRequest("instance %s is %s, not active", id, in.Status)
	}
	now := e.now()
	if status == kakaocloud.InstanceStatusStopped {
		in.setState(kakaocloud.InstanceStatusStopped, "stopped", "", powerStateShutdown, now)
		in.log(actionStop, now)
		return nil
	}
	in.setState(kakaocloud.InstanceStatusError, "error", "", powerStateNoState, now)
	return nil
}

// Instances returns a snapshot of every instance, deleting ones included, oldest first.
func (e *Emulator) Instances() []kakaocloud.Instance {
	e.advance()
	e.mu.Lock()
	defer e.mu.Unlock()
	instances := make([]kakaocloud.Instance, 0, len(e.instances))
	for _, in := range e.instances {
		instances = append(instances, in.snapshot())
	}
	return instances
}

// UserData returns the user data instance id was created with, decoded, as the metadata
// service hands it to the VM (the BCS API never shows it); ok is false for an instance that
// does not exist or is gone.
func (e *Emulator) UserData(id string) (userData string, ok bool) {
	e.advance()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, in := range e.instances {
		if in.ID == id {
			return in.userData, true
		}
	}
	return "", false
}

// SetControlPlane changes the cluster's control-plane version and phase, e.g. phase Updating
// during an upgrade; an empty argument leaves that part as it is. A new minor version without
// a patch version takes the patch version /versions lists for it.
func (e *Emulator) SetControlPlane(minor, patch, phase string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	cluster := &e.catalog.Cluster
	if minor != "" && minor != cluster.MinorVersion {
		cluster.MinorVersion = minor
		if offered, ok := e.catalog.version(minor); ok && patch == "" {
			cluster.PatchVersion = offered.PatchVersion
		}
	}
	cluster.PatchVersion = cmp.Or(patch, cluster.PatchVersion)
	cluster.Phase = cmp.Or(phase, cluster.Phase)
}

// SetVersionDeprecated marks a minor version deprecated or not; an unknown one is ignored.
func (e *Emulator) SetVersionDeprecated(minor string, deprecated bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range e.catalog.Versions {
		if e.catalog.Versions[i].MinorVersion == minor {
			e.catalog.Versions[i].IsDeprecated = deprecated
		}
	}
}

// RemoveVersion stops offering a minor version, as at its end of support.
func (e *Emulator) RemoveVersion(minor string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.catalog.Versions = slices.DeleteFunc(e.catalog.Versions, func(v kakaocloud.KubernetesVersion) bool {
		return v.MinorVersion == minor
	})
}

// AddVersion offers a version, replacing the entry of the same minor version; /versions stays
// sorted by minor version.
func (e *Emulator) AddVersion(offered kakaocloud.KubernetesVersion) {
	e.mu.Lock()
	defer e.mu.Unlock()
	versions := slices.DeleteFunc(e.catalog.Versions, func(v kakaocloud.KubernetesVersion) bool {
		return v.MinorVersion == offered.MinorVersion
	})
	versions = append(versions, offered)
	slices.SortFunc(versions, func(a, b kakaocloud.KubernetesVersion) int {
		return version.CompareMinor(a.MinorVersion, b.MinorVersion)
	})
	e.catalog.Versions = versions
}

// hasVersion reports whether a minor version is offered.
func (e *Emulator) hasVersion(minor string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.catalog.version(minor)
	return ok
}

// FailNodeImageLookups makes Kubernetes Engine's /images answer 500 while fail is true.
func (e *Emulator) FailNodeImageLookups(fail bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.nodeImagesFailing = fail
}
