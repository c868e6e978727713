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

// Package preflight checks, before a first NodePool, that everything the operator needs of
// KakaoCloud and of the cluster is in place: the credentials and a token issued with them,
// the endpoints, the Kubernetes Engine cluster, each KCNodeClass as the controller would see
// it (version, images, subnets and their zones, security groups, flavors offered there), the
// RBAC that lets nodes join, and the signing keys. Every check only reads (the RBAC ones ask
// the API server's SubjectAccessReview), and each failure says what to do.
//
// Of this project it imports api/kakaocloud/v1, internal/bootstrap, internal/catalog,
// internal/instancetype, internal/kakaocloud, internal/nodeclass, internal/signing.
package preflight
