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

// Package podevents records on a NodeClaim when a pod last came to, changed on or left its
// node (status.lastPodEventTime), the clock consolidateAfter is measured from; it writes it
// at most once per PodEventDedupe.
//
// Of this project it imports api/karpenter/v1, internal/utils/nodeclaim, internal/utils/pod.
package podevents
