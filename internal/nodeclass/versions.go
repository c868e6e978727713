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

package nodeclass

import (
	"fmt"
	"slices"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/version"
)

// AllowedWorkerVersions are the worker minor versions a control plane supports: its own and
// the one below (the skew KakaoCloud Kubernetes Engine allows for its nodes).
func AllowedWorkerVersions(controlPlane string) ([]string, error) {
	cp, err := version.Minor(controlPlane)
	if err != nil {
		return nil, fmt.Errorf("reading the control plane's version: %w", err)
	}
	allowed := []string{cp.String()}
	if cp.Minor() > 0 {
		allowed = append(allowed, cp.SubtractMinor(1).String())
	}
	return allowed, nil
}

// VersionSkew is the control plane's minor minus the worker's (0 or 1 when allowed).
func VersionSkew(controlPlane, worker string) (int, error) {
	cp, err := version.Minor(controlPlane)
	if err != nil {
		return 0, fmt.Errorf("reading the control plane's version: %w", err)
	}
	w, err := version.Minor(worker)
	if err != nil {
		return 0, fmt.Errorf("reading the worker's version: %w", err)
	}
	if cp.Major() != w.Major() {
		return 0, fmt.Errorf("worker %s and control plane %s differ in major version", w, cp)
	}
	return int(cp.Minor()) - int(w.Minor()), nil
}

// Offered reports whether Kubernetes Engine still offers a minor version: listed and not
// deprecated (docs/assumptions.md A13).
func Offered(versions []kakaocloud.KubernetesVersion, worker string) bool {
	for _, v := range versions {
		if v.MinorVersion == worker {
			return !v.IsDeprecated
		}
	}
	return false
}

// OfferedVersions lists the minor versions Kubernetes Engine offers.
func OfferedVersions(versions []kakaocloud.KubernetesVersion) []string {
	var out []string
	for _, v := range versions {
		if !v.IsDeprecated {
			out = append(out, v.MinorVersion)
		}
	}
	return out
}

// ControlPlaneUpgrading reports whether the cluster's control plane is changing; new nodes
// wait until it is stable.
func ControlPlaneUpgrading(c kakaocloud.Cluster) bool {
	switch c.Status.Phase {
	case kakaocloud.ClusterPhaseUpdating, kakaocloud.ClusterPhaseProvisioning, kakaocloud.ClusterPhasePending:
		return true
	}
	return false
}

// WorkerVersionCheck is what the version rules say of the worker version a KCNodeClass asks
// for, as admission reads them: the versions a node class may ask for now, and which rule, if
// any, the version breaks.
type WorkerVersionCheck struct {
	// Allowed are the versions a node class may ask for: those Kubernetes Engine offers, within
	// the skew the control plane allows when its version is known.
	Allowed []string
	// NotOffered: Kubernetes Engine does not offer the version (deprecated or unknown).
	NotOffered bool
	// OutOfSkew: the version is offered but outside the skew the control plane allows.
	OutOfSkew bool
}

// CheckWorkerVersion checks a worker version against the versions Kubernetes Engine offers
// (nil when they are not known) and, when controlPlaneKnown, the control plane's minor
// version. What is not known is not checked.
func CheckWorkerVersion(worker string, versions []kakaocloud.KubernetesVersion, controlPlane string, controlPlaneKnown bool) WorkerVersionCheck {
	offered := OfferedVersions(versions)
	check := WorkerVersionCheck{Allowed: offered}
	if controlPlaneKnown {
		if skewAllowed, err := AllowedWorkerVersions(controlPlane); err == nil {
			check.Allowed = slices.DeleteFunc(skewAllowed, func(s string) bool { return versions != nil && !slices.Contains(offered, s) })
		}
	}
	switch {
	case versions != nil && !Offered(versions, worker):
		check.NotOffered = true
	case controlPlaneKnown && !slices.Contains(check.Allowed, worker):
		check.OutOfSkew = true
	}
	return check
}
