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

import (
	"fmt"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Module is the project's module path; an import under it is an arrow of the graph.
const Module = "github.com/kakaocloud/karpenter-provider-kakaocloud/"

// Graph is the project's import graph: its packages (paths relative to the module root) and,
// for each, the project packages its code imports. Tests and the test kit are left out: they
// may reach anywhere to set a scene, and what ships is what the layering is about.
type Graph struct {
	Packages []string
	Imports  map[string][]string
}

// Arrow is one import: From imports To.
type Arrow struct {
	From, To string
}

// testKit are the packages that exist only for tests.
var testKit = []string{"internal/test", "internal/testenv"}

// LoadGraph reads the graph of the repository at root: every package under api/, cmd/ and
// internal/ but the test kit, from its non-test Go files' imports.
func LoadGraph(root string) (*Graph, error) {
	g := &Graph{Imports: map[string][]string{}}
	for _, top := range []string{"api", "cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, entry os.DirEntry, err error) error {
			if err != nil || !entry.IsDir() {
				return err
			}
			pkg, err := filepath.Rel(root, path)
			if err != nil {
				return fmt.Errorf("naming the package at %s: %w", path, err)
			}
			pkg = filepath.ToSlash(pkg)
			if isTestKit(pkg) {
				return filepath.SkipDir
			}
			imports, found, err := packageImports(path)
			if err != nil || !found {
				return err
			}
			g.Packages = append(g.Packages, pkg)
			g.Imports[pkg] = slices.DeleteFunc(imports, isTestKit)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading the packages under %s: %w", top, err)
		}
	}
	slices.Sort(g.Packages)
	return g, nil
}

// packageImports are the project packages the non-test Go files of dir import, sorted, and
// whether dir holds any such file.
func packageImports(dir string) ([]string, bool, error) {
	sources, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, false, fmt.Errorf("listing the Go files of %s: %w", dir, err)
	}
	seen := map[string]bool{}
	found := false
	for _, source := range sources {
		if strings.HasSuffix(source, "_test.go") {
			continue
		}
		found = true
		file, err := parser.ParseFile(token.NewFileSet(), source, nil, parser.ImportsOnly)
		if err != nil {
			return nil, false, fmt.Errorf("reading the imports of %s: %w", source, err)
		}
		for _, spec := range file.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			if rest, ok := strings.CutPrefix(path, Module); ok {
				seen[rest] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen)), found, nil
}

func isTestKit(pkg string) bool { return withinAny(pkg, testKit) }

// within says whether pkg is dir or a package below it.
func within(pkg, dir string) bool {
	return pkg == dir || strings.HasPrefix(pkg, dir+"/")
}

// withinAny says whether pkg is one of dirs or a package below one.
func withinAny(pkg string, dirs []string) bool {
	return slices.ContainsFunc(dirs, func(dir string) bool { return within(pkg, dir) })
}

// Arrows are every import of the graph, in package order.
func (g *Graph) Arrows() []Arrow {
	var arrows []Arrow
	for _, from := range g.Packages {
		for _, to := range g.Imports[from] {
			arrows = append(arrows, Arrow{From: from, To: to})
		}
	}
	return arrows
}
