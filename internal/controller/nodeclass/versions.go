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
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// minor is a Kubernetes minor version, 1.36 = {1, 36}.
type minor struct{ major, minor int }

// parseMinor reads "1.36", "1.36.4" or "v1.36.4".
func parseMinor(s string) (minor, error) {
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	if len(parts) < 2 {
		return minor{}, fmt.Errorf("%q is not a Kubernetes version", s)
	}
	major, err1 := strconv.Atoi(parts[0])
	min, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return minor{}, fmt.Errorf("%q is not a Kubernetes version", s)
	}
	return minor{major, min}, nil
}

func (m minor) String() string { return fmt.Sprintf("%d.%d", m.major, m.minor) }

// compareMinor orders minor versions oldest first; what does not parse goes last, by name.
func compareMinor(a, b string) int {
	x, errX := parseMinor(a)
	y, errY := parseMinor(b)
	switch {
	case errX != nil && errY != nil:
		return strings.Compare(a, b)
	case errX != nil:
		return 1
	case errY != nil:
		return -1
	}
	return cmp.Or(cmp.Compare(x.major, y.major), cmp.Compare(x.minor, y.minor))
}

// AllowedWorkerVersions are the worker minor versions a control plane supports: its own and
// the one below (the skew KakaoCloud Kubernetes Engine allows for its nodes).
func AllowedWorkerVersions(controlPlane string) ([]string, error) {
	cp, err := parseMinor(controlPlane)
	if err != nil {
		return nil, err
	}
	allowed := []string{cp.String()}
	if cp.minor > 0 {
		allowed = append(allowed, minor{cp.major, cp.minor - 1}.String())
	}
	return allowed, nil
}

// VersionSkew is the control plane's minor minus the worker's (0 or 1 when allowed).
func VersionSkew(controlPlane, worker string) (int, error) {
	cp, err := parseMinor(controlPlane)
	if err != nil {
		return 0, err
	}
	w, err := parseMinor(worker)
	if err != nil {
		return 0, err
	}
	if cp.major != w.major {
		return 0, fmt.Errorf("worker %s and control plane %s differ in major version", w, cp)
	}
	return cp.minor - w.minor, nil
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
