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

package instancetype

import (
	"cmp"
	"strconv"
	"strings"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// osLinux is the only OS of KakaoCloud's worker images.
const osLinux = "linux"

// kubernetesArch maps a flavor's architecture to the kubernetes.io/arch value; false for an
// architecture no worker image exists for.
func kubernetesArch(architecture string) (string, bool) {
	switch strings.ToLower(architecture) {
	case "x86_64", "amd64":
		return "amd64", true
	case "aarch64", "arm64":
		return "arm64", true
	}
	return "", false
}

// newLabels returns the single-valued labels of a node of flavor f. Family and size come from
// the flavor's fields, or from its "family.size" name when KakaoCloud leaves them empty.
func newLabels(f kakaocloud.Flavor, arch string) map[string]string {
	nameFamily, nameSize, _ := strings.Cut(f.Name, ".")
	labels := make(map[string]string, 9)
	labels[karpv1.LabelInstanceType] = f.Name
	labels[karpv1.LabelArch] = arch
	labels[karpv1.LabelOS] = osLinux
	labels[kcv1.LabelInstanceFamily] = cmp.Or(f.InstanceFamily, nameFamily)
	labels[kcv1.LabelInstanceSize] = cmp.Or(f.InstanceSize, nameSize)
	labels[kcv1.LabelInstanceCPU] = strconv.Itoa(f.VCPUs)
	labels[kcv1.LabelInstanceMemory] = strconv.FormatInt(f.MemoryMB, 10)
	if isGPU(f) {
		labels[kcv1.LabelInstanceGPUCount] = strconv.Itoa(f.HWCount)
		if f.HWName != "" {
			labels[kcv1.LabelInstanceGPUName] = strings.ToLower(f.HWName)
		}
	}
	return labels
}
