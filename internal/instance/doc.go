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

// Package instance launches, finds and deletes the KakaoCloud VMs behind NodeClaims. It is
// the only code that creates or deletes VMs, and it proves ownership of each one with a
// signed marker in the VM's description: KakaoCloud has no tags, names are not unique and
// creates have no idempotency key, so the marker is what keeps a retry from making a second
// VM and the controller from deleting a VM that is not its own.
//
// Of this project it imports internal/kakaocloud, internal/signing.
package instance
