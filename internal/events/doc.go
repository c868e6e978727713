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

// Package events is the one event recorder every controller publishes through: it passes
// events on to the API server's recorder, but an event already published (same object,
// type, reason, action and message) only again once DefaultRepeat has passed. Controllers
// re-evaluate every few seconds and would otherwise repeat the same news; a changed message
// is published at once. Each controller package names its events in an events.go of its own:
// the reasons as constants, each event as a function.
//
// It imports nothing of this project.
package events
