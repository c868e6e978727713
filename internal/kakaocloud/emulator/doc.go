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

// Package emulator is a stateful, in-process imitation of the KakaoCloud APIs the provider
// uses: IAM tokens, BCS virtual machines and flavors, the Image service, VPC subnets, network
// security groups and Kubernetes Engine. It speaks the wire format of package kakaocloud over
// real HTTP, so the client and every test above it run unchanged against it, and its admin
// API injects the failures (faults, latency, capacity shortages, failed builds, expired
// tokens, control-plane upgrades) that are hard to provoke on the real cloud.
//
// Of this project it imports internal/kakaocloud, internal/utils/version.
package emulator
