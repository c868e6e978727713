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

// Package nodeclass holds the KCNodeClass rules the controller, admission and preflight
// share: which Kubernetes versions Kubernetes Engine offers and which worker versions the
// control plane's skew allows (CheckWorkerVersion, as admission reads them), and a node class's
// status decided from what was read for it (Evaluate, pure: versions, images, subnets,
// security groups, the counts of its NodeClaims by signing key and node version, every
// condition with its reason and message, the conditions that turned on and the gauges' values).
// Reader is its one effectful step: it reads what Evaluate decides on, from the catalog, the
// image service and the cluster, and writes nothing. Writing the status, the finalizer, events
// and metrics are internal/controller/nodeclass's.
//
// Of this project it imports api/kakaocloud/v1, api/karpenter/v1, internal/kakaocloud,
// internal/utils/conditions, internal/utils/version.
package nodeclass
