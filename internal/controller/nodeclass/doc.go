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

// Package nodeclass reconciles KCNodeClasses: it keeps the finalizer that keeps a node class
// in use from being deleted and the static hash annotation, has internal/nodeclass read and
// decide the status (the control-plane version and the allowed worker skew, worker images,
// subnets, security groups, the conditions that gate node creation), writes it in one patch,
// publishes an event for each problem condition that turned on, and sets the node class's
// gauges.
//
// Of this project it imports api/kakaocloud/v1, api/karpenter/v1, internal/catalog,
// internal/metrics, internal/nodeclass, internal/utils/pretty.
package nodeclass
