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

package disruption

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// verdictCluster has three drifted nodes of a pool whose budget allows one at a time; a's pod
// holds it, b goes first (no pods, first by name) and c waits for the budget.
func verdictCluster() *cluster {
	c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "1"}))
	a := c.node("a", "default", "m2a.large", isDrifted)
	c.node("b", "default", "m2a.large", isDrifted)
	c.node("c", "default", "m2a.large", isDrifted)
	c.pods(testPod("job", a, "100m", "64Mi", withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, "true")))
	return c
}

const (
	heldByJob       = "pod default/job is annotated karpenter.sh/do-not-disrupt"
	heldByTheBudget = "NodePool default's budgets allow 1 Drifted disruptions now, which went to candidates before this one"
)

// withVerdict gives the NodeClaim the DisruptionBlocked condition a verdict leaves.
func withVerdict(reason, message string) nodeOpt {
	return func(nodeClaim *karpv1.NodeClaim, _ *corev1.Node) {
		nodeClaim.Status.Conditions = append(nodeClaim.Status.Conditions,
			metav1.Condition{Type: ConditionDisruptionBlocked, Status: metav1.ConditionTrue, Reason: reason, Message: message})
	}
}

func TestVerdicts(t *testing.T) {
	notDrifted := func(c *cluster) {
		for _, nodeClaim := range c.in.NodeClaims {
			meta.RemoveStatusCondition(&nodeClaim.Status.Conditions, karpv1.ConditionTypeDrifted)
		}
	}
	for _, tc := range []struct {
		name string
		// before are the NodeClaims' conditions before the decision, by name.
		before map[string]nodeOpt
		change func(*cluster)
		opts   Options
		// want are the verdicts by NodeClaim name: "Reason: words in the message", or
		// "removed"; the other NodeClaims have none.
		want map[string]string
	}{
		{
			name: "a node held gets the first words on it, the command's candidate none",
			want: map[string]string{"a": ReasonDisruptionBlocked + ": " + heldByJob, "c": ReasonBudgetExhausted + ": went to candidates before this one"},
		},
		{
			name:   "the same words again change nothing",
			before: map[string]nodeOpt{"a": withVerdict(ReasonDisruptionBlocked, heldByJob), "c": withVerdict(ReasonBudgetExhausted, heldByTheBudget)},
			want:   map[string]string{},
		},
		{
			name:   "other words replace them",
			before: map[string]nodeOpt{"a": withVerdict(ReasonUnconsolidatable, heldByJob), "c": withVerdict(ReasonBudgetExhausted, "older words")},
			want:   map[string]string{"a": ReasonDisruptionBlocked + ": " + heldByJob, "c": ReasonBudgetExhausted + ": " + heldByTheBudget},
		},
		{
			name:   "the command's candidate loses its condition, however little the decision tried",
			before: map[string]nodeOpt{"b": withVerdict(ReasonBudgetExhausted, heldByTheBudget)},
			opts:   Options{SkipConsolidation: true},
			want:   map[string]string{"a": ReasonDisruptionBlocked + ": " + heldByJob, "c": ReasonBudgetExhausted + ": " + heldByTheBudget, "b": "removed"},
		},
		{
			name:   "a decision that tried every method and held nothing removes them",
			before: map[string]nodeOpt{"a": withVerdict(ReasonDisruptionBlocked, heldByJob), "c": withVerdict(ReasonBudgetExhausted, heldByTheBudget)},
			change: notDrifted,
			want:   map[string]string{"a": "removed", "c": "removed"},
		},
		{
			name:   "a decision that did not try every method leaves them",
			before: map[string]nodeOpt{"a": withVerdict(ReasonDisruptionBlocked, heldByJob), "c": withVerdict(ReasonBudgetExhausted, heldByTheBudget)},
			change: notDrifted,
			opts:   Options{SkipConsolidation: true},
			want:   map[string]string{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := verdictCluster()
			for i, nodeClaim := range c.in.NodeClaims {
				if opt := tc.before[nodeClaim.Name]; opt != nil {
					opt(nodeClaim, c.in.Nodes[i])
				}
			}
			if tc.change != nil {
				tc.change(c)
			}
			d := c.snapshot().Decide(tc.opts)
			got := map[string]string{}
			for _, v := range d.Verdicts {
				if _, twice := got[v.NodeClaim.Name]; twice {
					t.Errorf("two verdicts on %s", v.NodeClaim.Name)
				}
				got[v.NodeClaim.Name] = "removed"
				if v.Held {
					got[v.NodeClaim.Name] = v.Reason + ": " + v.Message
				}
			}
			for name, want := range tc.want {
				reason, words, _ := strings.Cut(want, ": ")
				if g, ok := got[name]; !ok || !strings.HasPrefix(g, reason) || !strings.Contains(g, words) {
					t.Errorf("%s: verdict %q, want %q", name, g, want)
				}
			}
			for name, g := range got {
				if _, ok := tc.want[name]; !ok {
					t.Errorf("%s: verdict %q, want none", name, g)
				}
			}
		})
	}
}

func TestVerdictWordsAreBounded(t *testing.T) {
	c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
	a := c.node("a", "default", "m2a.large", isDrifted)
	c.pods(testPod(strings.Repeat("x", 2*maxVerdictMessage), a, "100m", "64Mi", withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, "true")))
	d := c.snapshot().Decide(Options{})
	if len(d.Verdicts) != 1 || len(d.Verdicts[0].Message) != maxVerdictMessage || !strings.HasSuffix(d.Verdicts[0].Message, "...") {
		t.Fatalf("verdicts %+v, want one of %d characters ending in ...", d.Verdicts, maxVerdictMessage)
	}
}
