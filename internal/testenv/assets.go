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

package testenv

import (
	"os"
	"path/filepath"
	"runtime"
)

// KubernetesVersion is the version of the control-plane binaries the suites run against; it
// matches K8S_VERSION in the Makefile and the k8s.io modules in go.mod.
const KubernetesVersion = "1.37.2"

// BinaryAssetsDirectory returns the directory holding kube-apiserver, etcd and kubectl:
// $KUBEBUILDER_ASSETS when set (make test sets it), else the setup-envtest layout that
// hack/build-k8s-binaries.sh fills, so that suites also run from an IDE or a bare go test.
func BinaryAssetsDirectory() string {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir
	}
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		data = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(data, "kubebuilder-envtest", "k8s", KubernetesVersion+"-"+runtime.GOOS+"-"+runtime.GOARCH)
}

// CRDDirectory returns config/crd/bases relative to the repository root, found by walking
// up from the working directory (go test runs each package in its own directory).
func CRDDirectory() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		candidate := filepath.Join(dir, "config", "crd", "bases")
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return candidate
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return candidate
		}
		dir = parent
	}
}

// WebhookDirectory returns config/webhook relative to the repository root.
func WebhookDirectory() string {
	return filepath.Join(filepath.Dir(filepath.Dir(CRDDirectory())), "webhook")
}
