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

// Package disruption decides which nodes to replace or remove (unhealthy, drifted, emptied or
// underused ones), one budget at a time, without breaking PodDisruptionBudgets, and says what
// holds the nodes it leaves alone. It is the disruption loop's decision, pure: it reads a
// SnapshotInput (the cluster as listed once, each NodePool's instance types, what the loop has
// under way) and returns what it decided; it holds no client and no recorder, and reads the
// time from the input and the clock it is given.
//
// NewSnapshot prepares one decision's view of the cluster. Snapshot.Decide tries the methods
// in order (repair, emptiness, drift, multi-node consolidation, single-node consolidation) and
// returns a Decision: the first command one of them produces, and everything else the
// decision found, for the loop to report (why each node left alone is held, the NodePools
// whose budgets allow nothing, what pods are told about their karpenter.sh/do-not-disrupt
// annotations, the Balanced scores, every NodePool's budgets, the changes to the NodeClaims'
// DisruptionBlocked condition, how long each method took). Nothing of it is left on the
// snapshot: a second decision on it is the same. DecideBatch decides more independent
// consolidation moves on the cluster with the ones before carried out, and ValidateBatch
// checks them again after the validation delay. The snapshot also says what needs no decision
// (Snapshot.BlockedByPool, UnaccountedTaints, Fingerprint). The budget rules
// (AllowedDisruptions, BudgetCounts, DescribeBudget), the NodeClaim condition
// DisruptionBlocked and the reasons the loop gives are this package's, for the loop and for
// kubectl karpenter alike.
//
// Of this project it imports api/karpenter/v1, internal/capacitybuffer, internal/cloudprovider,
// internal/repair, internal/scheduling, internal/simulation, internal/state,
// internal/utils/destination, internal/utils/labelindex, internal/utils/node,
// internal/utils/nodeclaim, internal/utils/pod, internal/utils/pretty, internal/utils/resources.
package disruption
