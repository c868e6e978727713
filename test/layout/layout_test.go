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

// Package layout checks what the doc.go of every package under internal/ says about the
// package's imports: the project packages it names are exactly the ones its code (tests
// aside) imports. A new dependency between packages is then a change to a doc.go, seen in
// review, and a layering rule (the disruption loop imports the cloudprovider interface, never
// the KakaoCloud implementation) cannot be broken quietly.
package layout

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	importsRule = regexp.MustCompile(`Of this project it imports ([^.]+)\.`)
	nothingRule = "It imports nothing of this project."
)

func TestEveryPackageSaysWhatItImports(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(path string, entry os.DirEntry, err error) error {
		if err != nil || !entry.IsDir() {
			return err
		}
		imports, found, err := packageImports(path)
		if err != nil || !found {
			return err
		}
		pkg, _ := filepath.Rel(root, path)
		pkg = filepath.ToSlash(pkg)
		doc, err := os.ReadFile(filepath.Join(path, "doc.go"))
		if err != nil {
			t.Errorf("%s has no doc.go saying what it owns and what it imports", pkg)
			return nil
		}
		said, ok := saidImports(string(doc))
		if !ok {
			t.Errorf("%s/doc.go says neither %q nor \"Of this project it imports ...\"", pkg, nothingRule)
			return nil
		}
		for _, dependency := range imports {
			if !slices.Contains(said, dependency) {
				t.Errorf("%s imports %s, which its doc.go does not name", pkg, dependency)
			}
		}
		for _, dependency := range said {
			if !slices.Contains(imports, dependency) {
				t.Errorf("%s/doc.go names %s, which the package does not import", pkg, dependency)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// saidImports reads the import rule of a doc.go, its comment lines joined.
func saidImports(doc string) ([]string, bool) {
	var text []string
	for line := range strings.SplitSeq(doc, "\n") {
		if comment, ok := strings.CutPrefix(line, "//"); ok {
			text = append(text, strings.TrimSpace(comment))
		}
	}
	joined := strings.Join(text, " ")
	if strings.Contains(joined, nothingRule) {
		return nil, true
	}
	match := importsRule.FindStringSubmatch(joined)
	if match == nil {
		return nil, false
	}
	var said []string
	for dependency := range strings.SplitSeq(match[1], ",") {
		said = append(said, strings.TrimSpace(dependency))
	}
	return said, true
}
