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

// Package workload holds workloads that benchmarks and the kube-scheduler judge share. Diverse
// rebuilds upstream Karpenter's scheduling benchmark (scheduling_benchmark_test.go of
// pkg/controllers/provisioning/scheduling, v1.15.0) fact for fact: its fake cloud provider's
// 400 instance types, its NodePool and its mix of pods, so that our figures and upstream's are
// measured on the same input. ConsolidationCluster draws a running cluster of thousands of
// nodes for the disruption pass's benchmark and judge: several NodePools and instance
// families, DaemonSets, Deployments with PodDisruptionBudgets, zone spreads and zonal
// anti-affinity. LowerBound and CatalogInstanceTypes price what a benchmark or the local
// cluster's performance suite launched against the least any nodes could cost.
//
// Of this project it imports api/kakaocloud/v1, api/karpenter/v1, internal/cloudprovider,
// internal/instancetype, internal/kakaocloud, internal/kakaocloud/emulator.
package workload
