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

// Package uidcache is the one memory controllers keep per object UID across reconciles: a
// value per UID that expires, so that objects long gone are forgotten without a watch on
// their deletion; and the resourceVersion a controller last wrote each object at, so that a
// pass on a cached copy older than its own write is not made.
//
// It imports nothing of this project.
package uidcache
