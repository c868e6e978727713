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

package metrics

import (
	"runtime"
	"runtime/debug"
)

var buildInfo = Gauge("karpenter_build_info",
	"Constant 1, labelled with the operator's version, the Go version and architecture it was built with, and its source commit.",
	"version", "goversion", "goarch", "commit")

// PublishBuildInfo sets karpenter_build_info from what the Go toolchain stamped into the
// binary: the module's version (from the source's tag, "(devel)" without one) and the
// commit it was built from ("" when built outside the repository).
func PublishBuildInfo() {
	version, commit := BuildVersion()
	buildInfo.WithLabelValues(version, runtime.Version(), runtime.GOARCH, commit).Set(1)
}

// BuildVersion is the binary's module version and source commit.
func BuildVersion() (version, commit string) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", ""
	}
	for _, setting := range info.Settings {
		if setting.Key == "vcs.revision" {
			commit = setting.Value
		}
	}
	return info.Main.Version, commit
}
