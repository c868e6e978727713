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

// Package fake is a cloud provider for specs that call the controllers themselves: instance
// types and offerings the spec chooses, VMs that exist as soon as they are created, every
// create and delete call recorded, the next error of a call injectable, and drift, launch
// and repair answers set by the spec. It talks to no cloud; the specs that must prove a
// controller against KakaoCloud's wire format use the emulator.
//
// Of this project it imports api/kakaocloud/v1, api/karpenter/v1, internal/cloudprovider,
// internal/scheduling.
package fake
