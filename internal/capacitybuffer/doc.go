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

// Package capacitybuffer turns CapacityBuffers into the pods they keep room for: resolving a
// buffer's pod template and number of chunks, building its virtual pods (which provisioning
// places as it places pending pods, and disruption keeps room for), and the conditions that
// say how that went.
//
// Of this project it imports api/autoscaling/v1beta1, internal/simulation,
// internal/utils/resources.
package capacitybuffer
