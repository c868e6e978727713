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

// Command importgraph prints the project's import graph as test/layout reads it: the number
// of packages, arrows and upward arrows (an import of a higher tier), then each upward arrow
// and each arrow a layering rule forbids. make import-graph runs it from the repository root;
// -arrows prints every arrow too, one "from -> to" per line.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/test/layout"
)

func main() {
	root := flag.String("root", ".", "the repository's root")
	all := flag.Bool("arrows", false, "print every arrow")
	flag.Parse()
	g, err := layout.LoadGraph(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if untiered := g.Untiered(); len(untiered) > 0 {
		fmt.Fprintf(os.Stderr, "%v are in no tier: add their directories to test/layout's tiers\n", untiered)
		os.Exit(1)
	}
	arrows, upward, violations := g.Arrows(), g.Upward(), g.Violations()
	fmt.Printf("packages %d, arrows %d, upward arrows %d, arrows the rules forbid %d\n",
		len(g.Packages), len(arrows), len(upward), len(violations))
	for _, a := range upward {
		from, _ := layout.LayerOf(a.From)
		to, _ := layout.LayerOf(a.To)
		fmt.Printf("upward (%s -> %s): %s -> %s\n", from, to, a.From, a.To)
	}
	for _, v := range violations {
		fmt.Printf("forbidden: %s\n", v)
	}
	if *all {
		for _, a := range arrows {
			fmt.Printf("%s -> %s\n", a.From, a.To)
		}
	}
}
