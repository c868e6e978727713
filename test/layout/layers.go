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

package layout

import "fmt"

// Layer is a tier of the project: a package may import packages of its own tier or of lower
// ones. An import of a higher tier runs upward.
type Layer int

const (
	// Foundation is what everything may use: the APIs, the small shared helpers, and the cloud
	// provider interface (what a controller knows of any cloud).
	Foundation Layer = iota
	// Cloud is KakaoCloud itself: the client and the emulator, and what turns their answers
	// into VMs, instance types, join scripts and signatures.
	Cloud
	// Library is where decisions are made without a controller: the cluster as read once per
	// decision, the simulation, the disruption decision, the KCNodeClass rules and node
	// repair's policies, and the cloud provider's implementations.
	Library
	// Controller is what reacts to the cluster (internal/controller) and what reads the same
	// decisions for a user: admission, whatif, the kubectl plugin and preflight.
	Controller
	// Wiring builds the process: the manager and the commands.
	Wiring
)

func (l Layer) String() string {
	return [...]string{"foundation", "cloud", "library", "controller", "wiring"}[l]
}

// tiers names each package's tier by the directory it sits in; the longest match wins.
var tiers = []struct {
	dir   string
	layer Layer
}{
	{"api", Foundation},
	{"internal/utils", Foundation},
	{"internal/events", Foundation},
	{"internal/metrics", Foundation},
	{"internal/cloudprovider", Foundation},
	{"internal/kakaocloud", Cloud},
	{"internal/signing", Cloud},
	{"internal/catalog", Cloud},
	{"internal/instance", Cloud},
	{"internal/instancetype", Cloud},
	{"internal/bootstrap", Cloud},
	{"internal/cloudprovider/kakao", Library},
	{"internal/cloudprovider/fake", Library},
	{"internal/scheduling", Library},
	{"internal/simulation", Library},
	{"internal/state", Library},
	{"internal/volumetopology", Library},
	{"internal/capacitybuffer", Library},
	{"internal/nodeclass", Library},
	{"internal/nodepool", Library},
	{"internal/repair", Library},
	{"internal/disruption", Library},
	{"internal/controller", Controller},
	{"internal/webhook", Controller},
	{"internal/explain", Controller},
	{"internal/plugin", Controller},
	{"internal/preflight", Controller},
	{"internal/operator", Wiring},
	{"cmd", Wiring},
}

// LayerOf is pkg's tier, and false for a package no tier names: a new top-level package must
// be placed before it is counted.
func LayerOf(pkg string) (Layer, bool) {
	best, layer := "", Foundation
	for _, t := range tiers {
		if within(pkg, t.dir) && len(t.dir) > len(best) {
			best, layer = t.dir, t.layer
		}
	}
	return layer, best != ""
}

// Untiered are the graph's packages no tier names.
func (g *Graph) Untiered() []string {
	var out []string
	for _, pkg := range g.Packages {
		if _, ok := LayerOf(pkg); !ok {
			out = append(out, pkg)
		}
	}
	return out
}

// Upward are the arrows from a package to one of a higher tier.
func (g *Graph) Upward() []Arrow {
	var up []Arrow
	for _, a := range g.Arrows() {
		from, _ := LayerOf(a.From)
		to, _ := LayerOf(a.To)
		if to > from {
			up = append(up, a)
		}
	}
	return up
}

// Rule is one layering rule, said as the arrows it forbids.
type Rule struct {
	Name   string
	Forbid func(Arrow) bool
}

// readSide are the packages that read decisions for a user rather than make them.
var readSide = []string{"internal/webhook", "internal/explain", "internal/plugin", "internal/preflight"}

// kakaoImplementation is the KakaoCloud cloud provider, and those that may name it: the
// process that wires it in and preflight, which checks a KakaoCloud account.
var (
	kakaoImplementation = "internal/cloudprovider/kakao"
	mayNameKakao        = []string{kakaoImplementation, "internal/operator", "cmd", "internal/preflight"}
)

// Rules are the layering rules test/layout holds the project to.
var Rules = []Rule{
	{
		Name: "a read-side package (webhook, explain, plugin, preflight) imports a controller",
		Forbid: func(a Arrow) bool {
			return withinAny(a.From, readSide) && within(a.To, "internal/controller")
		},
	},
	{
		Name: "a controller imports another controller",
		Forbid: func(a Arrow) bool {
			return within(a.From, "internal/controller") && within(a.To, "internal/controller")
		},
	},
	{
		Name: "provider-generic code imports the KakaoCloud cloud provider",
		Forbid: func(a Arrow) bool {
			return within(a.To, kakaoImplementation) && !withinAny(a.From, mayNameKakao)
		},
	},
}

// Violation is an arrow a rule forbids.
type Violation struct {
	Rule  string
	Arrow Arrow
}

func (v Violation) String() string {
	return fmt.Sprintf("%s: %s -> %s", v.Rule, v.Arrow.From, v.Arrow.To)
}

// Violations are the graph's arrows that the rules forbid, in package order.
func (g *Graph) Violations() []Violation {
	var found []Violation
	for _, a := range g.Arrows() {
		for _, r := range Rules {
			if r.Forbid(a) {
				found = append(found, Violation{Rule: r.Name, Arrow: a})
			}
		}
	}
	return found
}
