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

// Package kubelet plays the kubelets of the emulator's VMs for a local cluster: when a VM
// becomes active, the kubelet its user data starts registers a Node, as a real kubelet would
// (name, provider id, labels and taints from its flags, capacity and allocatable from its
// flavor), annotated so that kwok keeps it Ready with a lease and runs its pods. When a VM is
// gone, its Node is deleted, as a cloud node lifecycle controller would.
//
// Of this project it imports internal/kakaocloud, internal/kakaocloud/emulator,
// internal/utils/resources.
package kubelet
