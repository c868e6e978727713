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

// Package conditions sets the status conditions of this project's objects one way: stamped
// with the generation they describe, kept sorted by type, and a root condition (Ready)
// derived from the conditions it depends on, as cluster-api and upstream Karpenter summarise
// theirs.
//
// It imports nothing of this project.
package conditions
