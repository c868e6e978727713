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

// Package bootstraptoken deletes a NodeClaim's bootstrap token once nothing needs it: when the
// NodeClaim's node has registered (its kubelet holds a certificate from then on) and when the
// NodeClaim is being deleted. A bootstrap token can register any node, so it should not
// outlive its use, and a managed control plane may not run the token cleaner that deletes
// expired ones. The token Secret of a NodeClaim that is gone is deleted by Kubernetes' garbage
// collector, through the Secret's owner reference, whether or not this controller ran.
//
// Of this project it imports api/karpenter/v1, internal/bootstrap.
package bootstraptoken
