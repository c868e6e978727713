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
	"go/ast"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

const (
	controllerRuntimeClient = "sigs.k8s.io/controller-runtime/pkg/client"
	nodeClaimWriter         = "internal/utils/nodeclaim"
)

// TestNodeClaimsAreWrittenThroughOnePackage: no code but internal/utils/nodeclaim (and the
// test kit, which sets scenes) patches, updates or deletes a NodeClaim with the API client
// itself, so that every write keeps its rule (resourceVersion or UID). Creating one is free.
func TestNodeClaimsAreWrittenThroughOnePackage(t *testing.T) {
	pkgs, err := packages.Load(&packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  filepath.Join("..", ".."),
	}, "./internal/...", "./cmd/...")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, pkg := range pkgs {
		for _, e := range pkg.Errors {
			t.Errorf("loading %s: %v", pkg.PkgPath, e)
		}
		rel := strings.TrimPrefix(pkg.PkgPath, Module)
		if rel == nodeClaimWriter || isTestKit(rel) {
			continue
		}
		checked++
		for _, file := range pkg.Syntax {
			ast.Inspect(file, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if method := writesANodeClaim(pkg.TypesInfo, call); method != "" {
					pos := pkg.Fset.Position(call.Pos())
					t.Errorf("%s/%s:%d: %s of a NodeClaim with the API client: write it through %s", rel, filepath.Base(pos.Filename), pos.Line, method, nodeClaimWriter)
				}
				return true
			})
		}
	}
	if checked < 40 {
		t.Errorf("only %d packages checked: the loader found too few", checked)
	}
}

// writesANodeClaim names the controller-runtime client method a call makes to patch, update
// or delete a NodeClaim, or is empty.
func writesANodeClaim(info *types.Info, call *ast.CallExpr) string {
	selector, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	method, ok := info.Uses[selector.Sel].(*types.Func)
	if !ok || method.Pkg() == nil || method.Pkg().Path() != controllerRuntimeClient ||
		!slices.Contains([]string{"Patch", "Update", "Delete", "DeleteAllOf"}, method.Name()) {
		return ""
	}
	for _, arg := range call.Args {
		if isNodeClaim(info.TypeOf(arg)) {
			return method.Name()
		}
	}
	return ""
}

func isNodeClaim(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return false
	}
	return named.Obj().Pkg().Path() == Module+"api/karpenter/v1" && slices.Contains([]string{"NodeClaim", "NodeClaimList"}, named.Obj().Name())
}
