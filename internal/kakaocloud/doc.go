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

// Package kakaocloud is the typed client of the KakaoCloud APIs the controller uses: IAM
// tokens, BCS virtual machines and flavors, images, VPC subnets, network security groups and
// Kubernetes Engine. Every call goes through one request path that authenticates, retries
// what is safe to retry, maps errors to kinds and records metrics.
//
// Of this project it imports internal/metrics.
package kakaocloud
