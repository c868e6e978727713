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

// Package operatorcondition tells Operator Lifecycle Manager whether the operator may be
// upgraded to its next release: the Upgradeable condition of the OperatorCondition OLM made
// for it, written through operator-lib's conditions package. OLM holds an upgrade while the
// condition is False. It runs only under OLM, which names the OperatorCondition in the
// environment (OPERATOR_CONDITION_NAME).
//
// Of this project it imports api/kakaocloud/v1, api/karpenter/v1.
package operatorcondition
