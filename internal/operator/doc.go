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

// Package operator builds every controller of the operator from one set of parts, so that the
// binary and the test suites run the same controllers wired the same way: the suites call
// their reconcilers directly, the binary registers them on its manager.
//
// Of this project it imports api/autoscaling/v1beta1, internal/catalog, internal/cloudprovider,
// internal/cloudprovider/kakao, internal/controller/capacitybuffer, internal/controller/disruption,
// internal/controller/instance/garbagecollection, internal/controller/metrics/node,
// internal/controller/metrics/pod, internal/controller/metrics/status,
// internal/controller/node/health, internal/controller/nodeclaim/bootstraptoken,
// internal/controller/nodeclaim/disruption, internal/controller/nodeclaim/expiration,
// internal/controller/nodeclaim/garbagecollection, internal/controller/nodeclaim/lifecycle,
// internal/controller/nodeclaim/podevents, internal/controller/nodeclass,
// internal/controller/nodepool, internal/controller/nodepool/static,
// internal/controller/operatorcondition, internal/controller/provisioning, internal/events,
// internal/explain, internal/instance, internal/instancetype, internal/kakaocloud,
// internal/signing, internal/simulation, internal/state, internal/utils/index,
// internal/utils/singleton.
package operator
