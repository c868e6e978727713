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

// Package pod publishes upstream Karpenter's pod metrics: one karpenter_pods_state series per
// pod, and how long pods waited to be bound and to start, from their creation and from when
// provisioning first found them a place (state.PodSchedulingTimes).
//
// Of this project it imports api/karpenter/v1, internal/metrics, internal/state,
// internal/utils/pod.
package pod
