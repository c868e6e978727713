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

// Package test is the kit every envtest suite is built from: one environment (a real
// kube-apiserver and etcd, the KakaoCloud emulator over loopback HTTP, a fake clock), object
// factories and an in-memory event recorder; package expectations holds the Expect helpers.
//
// Of this project it imports api/kakaocloud/v1, api/karpenter/v1, internal/catalog,
// internal/kakaocloud, internal/kakaocloud/emulator, internal/operator, internal/signing,
// internal/testenv.
package test
