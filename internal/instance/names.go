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
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

// KakaoCloud's rules for a VM name: 4 to 63 characters, alphanumerics, '-' and '_', starting
// and ending with an alphanumeric, and no two separators in a row.
var (
	vmNamePattern  = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_-]*[a-zA-Z0-9]$`)
	vmNameInvalid  = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)
	separatorsRuns = regexp.MustCompile(`[-_]{2,}`)
)

const maxVMNameLength = 63

// VMName is the name of the VM of a NodeClaim. NodeClaim names are Kubernetes names; most are
// valid VM names as they are and are used unchanged, which is what lets a leaked VM be matched
// back to its NodeClaim. Others are rewritten deterministically, with a hash of the original
// so that two NodeClaims never share a VM name.
func VMName(nodeClaim string) string {
	if validVMName(nodeClaim) {
		return nodeClaim
	}
	sum := sha256.Sum256([]byte(nodeClaim))
	suffix := hex.EncodeToString(sum[:4])
	base := vmNameInvalid.ReplaceAllString(nodeClaim, "-")
	base = separatorsRuns.ReplaceAllString(base, "-")
	base = strings.Trim(base, "-_")
	if max := maxVMNameLength - len(suffix) - 1; len(base) > max {
		base = strings.TrimRight(base[:max], "-_")
	}
	if base == "" {
		return "karpenter-" + suffix
	}
	return base + "-" + suffix
}

func validVMName(name string) bool {
	return len(name) >= 4 && len(name) <= maxVMNameLength && vmNamePattern.MatchString(name) && !separatorsRuns.MatchString(name)
}

// SigningClusterID is the cluster id written in VM markers: the cluster name when it fits the
// marker's 40 characters, else a shortened name with a hash of the whole.
func SigningClusterID(clusterName string) string {
	const max = 40
	clean := regexp.MustCompile(`[^A-Za-z0-9_.-]`).ReplaceAllString(clusterName, "-")
	if clean == clusterName && len(clean) <= max && clean != "" {
		return clean
	}
	sum := sha256.Sum256([]byte(clusterName))
	suffix := hex.EncodeToString(sum[:4])
	if len(clean) > max-len(suffix)-1 {
		clean = clean[:max-len(suffix)-1]
	}
	return clean + "-" + suffix
}
