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

package crd

import (
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// This table replays, on our CRDs, the cases of upstream Karpenter's API tests (the package
// pkg/apis/v1 of sigs.k8s.io/karpenter v1.15.0; v1.15.1, the version we follow, cannot be
// fetched from the module proxy yet, and its API tests are to be compared when it can): each
// entry is one object a case sends to the API server (a case that sends several gets one entry
// per object), written here as data, with the verdict upstream's test expects for it. Where we
// decide otherwise on purpose, the entry says so and why; every other entry must come out as
// upstream's. docs/conformance.md sums it up.
//
// labels_test.go of that package is not replayed: its cases check upstream's documentation of
// its annotations and send nothing to an API server.

// Upstream's test files, under pkg/apis/v1.
const (
	nodePoolValidationFile  = "nodepool_validation_cel_test.go"
	nodeClaimValidationFile = "nodeclaim_validation_cel_test.go"
	nodePoolDefaultFile     = "nodepool_default_test.go"
	nodePoolBudgetsFile     = "nodepool_budgets_test.go"
)

// The NodePool upstream's NodePool cases start from, as its client sends it: the zero
// expireAfter and consolidateAfter of its Go type are written out as "Never". Upstream points
// nodeClassRef at its test node class; ours admits KCNodeClasses only, so the fixture points
// at one (see refusesOtherNodeClasses).
const upstreamNodePool = `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: upstream
spec:
  template:
    metadata: {}
    spec:
      nodeClassRef:
        group: karpenter.kakaocloud.com
        kind: KCNodeClass
        name: default
      requirements:
        - key: karpenter.sh/capacity-type
          operator: Exists
      expireAfter: Never
  disruption:
    consolidateAfter: Never
`

// The NodeClaim upstream's NodeClaim cases start from, as its client sends it.
const upstreamNodeClaim = `
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: upstream
spec:
  nodeClassRef:
    group: karpenter.kakaocloud.com
    kind: KCNodeClass
    name: default
  requirements:
    - key: karpenter.sh/capacity-type
      operator: Exists
  resources: {}
  expireAfter: Never
`

// verdict is what becomes of an object sent to the API server.
type verdict int

const (
	// sameAsUpstream, as an entry's ours, means we decide as upstream does.
	sameAsUpstream verdict = iota
	// admitted: stored, and nothing refuses it later.
	admitted
	// refused at admission. For ours that is the CRD's schema and CEL rules, or the NodePool
	// webhook, which refuses what NodePool.RuntimeValidate finds; this suite starts no webhook
	// server, so it calls RuntimeValidate on what the API server stored.
	refused
	// flagged (upstream only): stored, then found invalid when upstream's controllers read it:
	// RuntimeValidate marks the NodePool ValidationSucceeded False, or a budget fails to parse
	// when disruption reads it. The object is never used.
	flagged
)

func (v verdict) String() string {
	return [...]string{"the same as upstream", "admitted", "refused", "flagged"}[v]
}

// The reasons of our deliberate differences, shared by the entries they apply to.
const (
	// Upstream admits these and its controller flags them; a NodePool that can never launch a
	// node is refused by our CRD or webhook instead, so that kubectl apply reports the field.
	refusesAtAdmission = "refused at admission with the field's message where upstream admits the object and flags it when its controllers read it: it could never be used"
	// Other cloud providers' label keys say nothing on KakaoCloud; the message names ours.
	refusesOtherProviders = "other cloud providers' label keys are refused with a message naming the KakaoCloud keys"
	// A NodePool or NodeClaim of this provider launches KakaoCloud VMs from a KCNodeClass.
	refusesOtherNodeClasses = "nodeClassRef must reference a KCNodeClass: upstream's test node class stands for a provider's node class, and ours is KCNodeClass"
)

// edit changes an object before it is sent.
type edit func(*unstructured.Unstructured)

// storedField is a field as the API server stores it after admission (defaults filled in).
type storedField struct {
	path []string
	want any
}

type upstreamCase struct {
	// build returns the object the case sends.
	build func() *unstructured.Unstructured
	// then, when set, is applied to the stored object, which is sent back as an update; the
	// verdicts are then the update's.
	then     edit
	upstream verdict
	// ours is sameAsUpstream unless we decide otherwise on purpose, and then why says why.
	ours verdict
	why  string
	// says is a part of our refusal's message: the refusal must be for the case's reason.
	says   string
	stored []storedField
	// note explains how the entry reads upstream's case where that is not plain.
	note string
}

// entry names a case by upstream's file and its Describe/Context/It path.
func entry(file, path string, c upstreamCase) TableEntry {
	return Entry(file+": "+path, c)
}

func poolCase(path string, c upstreamCase) TableEntry {
	return entry(nodePoolValidationFile, "CEL/Validation > "+path, c)
}

func claimCase(path string, c upstreamCase) TableEntry {
	return entry(nodeClaimValidationFile, "Validation > "+path, c)
}

func budgetCase(path string, c upstreamCase) TableEntry {
	return entry(nodePoolBudgetsFile, "Budgets > "+path, c)
}

func pool(edits ...edit) func() *unstructured.Unstructured {
	return func() *unstructured.Unstructured {
		u := object(upstreamNodePool)
		for _, e := range edits {
			e(u)
		}
		return u
	}
}

func claim(edits ...edit) func() *unstructured.Unstructured {
	return func() *unstructured.Unstructured {
		u := object(upstreamNodeClaim)
		for _, e := range edits {
			e(u)
		}
		return u
	}
}

// spec sets a field of what a NodePool's template and a NodeClaim share: the template's spec
// in a NodePool, the spec in a NodeClaim.
func spec(name string, value any) edit {
	return func(u *unstructured.Unstructured) {
		if u.GetKind() == "NodeClaim" {
			set(u, value, "spec", name)
			return
		}
		set(u, value, "spec", "template", "spec", name)
	}
}

func at(value any, path ...any) edit {
	return func(u *unstructured.Unstructured) { set(u, value, path...) }
}

func without(path ...string) edit {
	return func(u *unstructured.Unstructured) { del(u, path...) }
}

func requirements(rs ...map[string]any) edit {
	list := make([]any, len(rs))
	for i, r := range rs {
		list[i] = r
	}
	return spec("requirements", list)
}

func withMinValues(r map[string]any, n int64) map[string]any {
	r["minValues"] = n
	return r
}

// taint is a taint as upstream's client writes it: key and effect always, value when set.
func taint(key, value, effect string) map[string]any {
	t := map[string]any{"key": key, "effect": effect}
	if value != "" {
		t["value"] = value
	}
	return t
}

func taints(name string, ts ...map[string]any) edit {
	list := make([]any, len(ts))
	for i, t := range ts {
		list[i] = t
	}
	return spec(name, list)
}

func labels(kv ...string) edit {
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return at(m, "spec", "template", "metadata", "labels")
}

// budget is a budget as upstream's client writes it; schedule and duration only when given.
func budget(nodes, schedule, duration string, reasons ...string) map[string]any {
	b := map[string]any{"nodes": nodes}
	if schedule != "" {
		b["schedule"] = schedule
	}
	if duration != "" {
		b["duration"] = duration
	}
	if len(reasons) > 0 {
		rs := make([]any, len(reasons))
		for i, r := range reasons {
			rs[i] = r
		}
		b["reasons"] = rs
	}
	return b
}

func budgets(bs ...map[string]any) edit {
	list := make([]any, len(bs))
	for i, b := range bs {
		list[i] = b
	}
	return at(list, "spec", "disruption", "budgets")
}

func storedAs(want any, path ...string) storedField { return storedField{path: path, want: want} }

// runtimeValidate reads a stored NodePool as the webhook and the NodePool controller do.
func runtimeValidate(u *unstructured.Unstructured) field.ErrorList {
	raw, err := json.Marshal(u.Object)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	np := &karpv1.NodePool{}
	ExpectWithOffset(1, json.Unmarshal(raw, np)).To(Succeed())
	return np.RuntimeValidate()
}

// numbered returns the n values prefix0 .. prefix(n-1), as upstream generates its long lists.
func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

// Budgets of upstream's budget cases: its fixture list, each budget written as its client
// writes a metav1.Duration ("1h0m0s").
func upstreamBudgets() []map[string]any {
	return []map[string]any{
		budget("10", "* * * * *", "1h0m0s"),
		budget("100", "* * * * *", "1h0m0s"),
		budget("100%", "* * * * *", "1h0m0s"),
		budget("15", "* * * * *", "1h0m0s", "Drifted", "Underutilized"),
		budget("5", "* * * * *", "1h0m0s", "Drifted"),
		budget("0", "@weekly", "1h0m0s", "Underutilized", "Drifted", "Empty", "Unhealthy"),
	}
}

// budgetsWith returns upstream's budget fixture after change.
func budgetsWith(change func(bs []map[string]any) []map[string]any) edit {
	return func(u *unstructured.Unstructured) { budgets(change(upstreamBudgets())...)(u) }
}

var _ = Describe("Upstream Karpenter's API cases", func() {
	DescribeTable("decide as upstream's CRDs, or differ for a stated reason",
		func(c upstreamCase) {
			ours := c.ours
			if ours == sameAsUpstream {
				ours = c.upstream
			}
			Expect(ours).To(BeElementOf(admitted, refused), "we admit or refuse; we never keep an object we know cannot be used")
			differs, explained := ours != c.upstream, c.why != ""
			Expect(differs).To(Equal(explained), "an entry names why exactly when we differ from upstream")
			if ours == refused {
				Expect(c.says).NotTo(BeEmpty(), "a refusal names a part of its message")
			}

			u := c.build()
			var err error
			if c.then != nil {
				Expect(k8sClient.Create(ctx, u)).To(Succeed())
				u = get(u)
				c.then(u)
				err = k8sClient.Update(ctx, u)
			} else {
				err = k8sClient.Create(ctx, u)
			}
			var message string
			switch {
			case err != nil:
				Expect(apierrors.IsInvalid(err)).To(BeTrue(), "refused for another reason than validation: %v", err)
				message = err.Error()
			case u.GetKind() == "NodePool":
				if errs := runtimeValidate(get(u)); len(errs) > 0 {
					message = "webhook: " + errs.ToAggregate().Error()
				}
			}

			// explain adds the entry's note, if any, to a failure's message.
			explain := func(s string) string {
				if c.note == "" {
					return s
				}
				return s + " (" + c.note + ")"
			}
			if ours == admitted {
				Expect(message).To(BeEmpty(), explain("want it admitted"))
				stored := get(u)
				for _, f := range c.stored {
					Expect(nested(stored, f.path...)).To(Equal(f.want), explain(strings.Join(f.path, ".")))
				}
				return
			}
			Expect(message).NotTo(BeEmpty(), explain("admitted, want it refused"))
			Expect(message).To(ContainSubstring(c.says), explain("refused for another reason"))
			// A rule that fails to evaluate must not pass for a refusal.
			Expect(message).NotTo(ContainSubstring("evaluating rule"))
		},

		// ---- nodepool_validation_cel_test.go: Disruption ----
		poolCase("Disruption > should succeed on a disabled expireAfter", upstreamCase{
			build: pool(spec("expireAfter", "Never")), upstream: admitted,
		}),
		poolCase("Disruption > should succeed on a valid expireAfter > single unit", upstreamCase{
			build: pool(spec("expireAfter", "30s")), upstream: admitted,
		}),
		poolCase("Disruption > should succeed on a valid expireAfter > multiple units", upstreamCase{
			build: pool(spec("expireAfter", "1h30m5s")), upstream: admitted,
		}),
		poolCase("Disruption > should succeed on a valid expireAfter > never", upstreamCase{
			build: pool(spec("expireAfter", "Never")), upstream: admitted,
		}),
		poolCase("Disruption > should fail on an invalid expireAfter > negative", upstreamCase{
			build: pool(spec("expireAfter", "-1s")), upstream: refused,
			says: `spec.template.spec.expireAfter: Invalid value: "-1s"`,
		}),
		poolCase("Disruption > should fail on an invalid expireAfter > invalid unit", upstreamCase{
			build: pool(spec("expireAfter", "1hr")), upstream: refused,
			says: `spec.template.spec.expireAfter: Invalid value: "1hr"`,
		}),
		poolCase("Disruption > should fail on an invalid expireAfter > partial match", upstreamCase{
			build: pool(spec("expireAfter", "FooNever")), upstream: refused,
			says: `spec.template.spec.expireAfter: Invalid value: "FooNever"`,
		}),
		poolCase("Disruption > should succeed on a disabled consolidateAfter", upstreamCase{
			build: pool(at("Never", "spec", "disruption", "consolidateAfter")), upstream: admitted,
		}),
		poolCase("Disruption > should succeed on a valid consolidateAfter > single unit", upstreamCase{
			build: pool(at("30s", "spec", "disruption", "consolidateAfter")), upstream: admitted,
		}),
		poolCase("Disruption > should succeed on a valid consolidateAfter > multiple units", upstreamCase{
			build: pool(at("1h30m5s", "spec", "disruption", "consolidateAfter")), upstream: admitted,
		}),
		poolCase("Disruption > should succeed on a valid consolidateAfter > never", upstreamCase{
			build: pool(at("Never", "spec", "disruption", "consolidateAfter")), upstream: admitted,
		}),
		poolCase("Disruption > should fail on an invalid consolidateAfter > negative", upstreamCase{
			build: pool(at("-1s", "spec", "disruption", "consolidateAfter")), upstream: refused,
			says: `spec.disruption.consolidateAfter: Invalid value: "-1s"`,
		}),
		poolCase("Disruption > should fail on an invalid consolidateAfter > invalid unit", upstreamCase{
			build: pool(at("1hr", "spec", "disruption", "consolidateAfter")), upstream: refused,
			says: `spec.disruption.consolidateAfter: Invalid value: "1hr"`,
		}),
		poolCase("Disruption > should fail on an invalid consolidateAfter > partial match", upstreamCase{
			build: pool(at("FooNever", "spec", "disruption", "consolidateAfter")), upstream: refused,
			says: `spec.disruption.consolidateAfter: Invalid value: "FooNever"`,
		}),
		poolCase("Disruption > should succeed when setting consolidateAfter with consolidationPolicy=WhenEmpty", upstreamCase{
			build:    pool(at("30s", "spec", "disruption", "consolidateAfter"), at("WhenEmpty", "spec", "disruption", "consolidationPolicy")),
			upstream: admitted,
		}),
		poolCase("Disruption > should succeed when setting consolidateAfter with consolidationPolicy=WhenUnderutilized", upstreamCase{
			build:    pool(at("30s", "spec", "disruption", "consolidateAfter"), at("WhenEmptyOrUnderutilized", "spec", "disruption", "consolidationPolicy")),
			upstream: admitted,
		}),
		poolCase("Disruption > should succeed when setting consolidateAfter to 'Never' with consolidationPolicy=WhenUnderutilized", upstreamCase{
			build:    pool(at("Never", "spec", "disruption", "consolidateAfter"), at("WhenEmptyOrUnderutilized", "spec", "disruption", "consolidationPolicy")),
			upstream: admitted,
		}),
		poolCase("Disruption > should succeed when setting consolidateAfter to 'Never' with consolidationPolicy=WhenEmpty", upstreamCase{
			build:    pool(at("Never", "spec", "disruption", "consolidateAfter"), at("WhenEmpty", "spec", "disruption", "consolidationPolicy")),
			upstream: admitted,
		}),
		poolCase("Disruption > should default consolidateAfter to '0s' when omitted on a dynamic NodePool", upstreamCase{
			build: pool(without("spec", "disruption", "consolidateAfter")), upstream: admitted,
			stored: []storedField{storedAs("0s", "spec", "disruption", "consolidateAfter")},
		}),
		poolCase("Disruption > should succeed on a valid consolidationPolicy > WhenEmpty", upstreamCase{
			build: pool(at("WhenEmpty", "spec", "disruption", "consolidationPolicy")), upstream: admitted,
		}),
		poolCase("Disruption > should succeed on a valid consolidationPolicy > WhenEmptyOrUnderutilized", upstreamCase{
			build: pool(at("WhenEmptyOrUnderutilized", "spec", "disruption", "consolidationPolicy")), upstream: admitted,
		}),
		poolCase("Disruption > should succeed on a valid consolidationPolicy > Balanced", upstreamCase{
			build: pool(at("Balanced", "spec", "disruption", "consolidationPolicy")), upstream: admitted,
		}),
		invalidPolicy("quoted 1", "1"),
		invalidPolicy("quoted 2", "2"),
		invalidPolicy("quoted 3", "3"),
		invalidPolicy("level 0", "0"),
		invalidPolicy("level 4", "4"),
		invalidPolicy("level 10", "10"),
		invalidPolicy("lowercase balanced", "balanced"),
		invalidPolicy("lowercase whenempty", "whenempty"),
		invalidPolicy("empty string", ""),
		invalidPolicy("WhenUnderutilized", "WhenUnderutilized"),
		invalidPolicy("arbitrary string", "foo"),
		// Upstream runs its RuntimeValidate on these without sending them; we send them, and
		// the verdict includes our RuntimeValidate.
		poolCase("Disruption > should pass RuntimeValidate for valid consolidationPolicy > WhenEmpty", upstreamCase{
			build: pool(at("WhenEmpty", "spec", "disruption", "consolidationPolicy")), upstream: admitted,
		}),
		poolCase("Disruption > should pass RuntimeValidate for valid consolidationPolicy > WhenEmptyOrUnderutilized", upstreamCase{
			build: pool(at("WhenEmptyOrUnderutilized", "spec", "disruption", "consolidationPolicy")), upstream: admitted,
		}),
		poolCase("Disruption > should pass RuntimeValidate for valid consolidationPolicy > Balanced", upstreamCase{
			build: pool(at("Balanced", "spec", "disruption", "consolidationPolicy")), upstream: admitted,
		}),
		poolCase("Disruption > should fail when creating a budget with an invalid cron", upstreamCase{
			build: pool(budgets(budget("10", "*", "20m0s"))), upstream: refused,
			says: `spec.disruption.budgets[0].schedule: Invalid value: "*"`,
		}),
		poolCase("Disruption > should fail when creating a schedule with less than 5 entries", upstreamCase{
			build: pool(budgets(budget("10", "* * * * ", "20m0s"))), upstream: refused,
			says: `spec.disruption.budgets[0].schedule: Invalid value: "* * * * "`,
		}),
		poolCase("Disruption > should fail when creating a budget with a negative duration", upstreamCase{
			build: pool(budgets(budget("10", "* * * * *", "-20m0s"))), upstream: refused,
			says: `spec.disruption.budgets[0].duration: Invalid value: "-20m0s"`,
		}),
		poolCase("Disruption > should fail when creating a budget with a seconds duration", upstreamCase{
			build: pool(budgets(budget("10", "* * * * *", "30s"))), upstream: refused,
			says: `spec.disruption.budgets[0].duration: Invalid value: "30s"`,
		}),
		poolCase("Disruption > should fail when creating a budget with a negative value int", upstreamCase{
			build: pool(budgets(budget("-10", "", ""))), upstream: refused,
			says: `spec.disruption.budgets[0].nodes: Invalid value: "-10"`,
		}),
		poolCase("Disruption > should fail when creating a budget with a negative value percent", upstreamCase{
			build: pool(budgets(budget("-10%", "", ""))), upstream: refused,
			says: `spec.disruption.budgets[0].nodes: Invalid value: "-10%"`,
		}),
		poolCase("Disruption > should fail when creating a budget with a value percent with more than 3 digits", upstreamCase{
			build: pool(budgets(budget("1000%", "", ""))), upstream: refused,
			says: `spec.disruption.budgets[0].nodes: Invalid value: "1000%"`,
		}),
		poolCase("Disruption > should fail when creating a budget with a cron but no duration", upstreamCase{
			build: pool(budgets(budget("10", "* * * * *", ""))), upstream: refused,
			says: "'schedule' must be set with 'duration'",
		}),
		poolCase("Disruption > should fail when creating a budget with a duration but no cron", upstreamCase{
			build: pool(budgets(budget("10", "", "20m0s"))), upstream: refused,
			says: "'schedule' must be set with 'duration'",
		}),
		poolCase("Disruption > should succeed when creating a budget with both duration and cron", upstreamCase{
			build: pool(budgets(budget("10", "* * * * *", "20m0s"))), upstream: admitted,
		}),
		poolCase("Disruption > should succeed when creating a budget with hours and minutes in duration", upstreamCase{
			build: pool(budgets(budget("10", "* * * * *", "2h20m0s"))), upstream: admitted,
		}),
		poolCase("Disruption > should succeed when creating a budget with neither duration nor cron", upstreamCase{
			build: pool(budgets(budget("10", "", ""))), upstream: admitted,
		}),
		poolCase("Disruption > should succeed when creating a budget with special cased crons", upstreamCase{
			build: pool(budgets(budget("10", "@annually", "20m0s"))), upstream: admitted,
		}),
		poolCase("Disruption > should fail when creating two budgets where one has an invalid crontab", upstreamCase{
			build:    pool(budgets(budget("10", "@annually", "20m0s"), budget("10", "*", "20m0s"))),
			upstream: refused,
			says:     `spec.disruption.budgets[1].schedule: Invalid value: "*"`,
		}),
		poolCase("Disruption > should fail when creating multiple budgets where one doesn't have both schedule and duration", upstreamCase{
			build:    pool(budgets(budget("10", "", "20m0s"), budget("10", "* * * * *", "20m0s"), budget("10", "", ""))),
			upstream: refused,
			says:     "'schedule' must be set with 'duration'",
		}),
		poolCase("Disruption > should succeed when creating a budget with valid reasons > should allow disruption reason Drifted", upstreamCase{
			build: pool(budgets(budget("10", "* * * * *", "20m0s", "Drifted"))), upstream: admitted,
		}),
		poolCase("Disruption > should succeed when creating a budget with valid reasons > should allow disruption reason Underutilized", upstreamCase{
			build: pool(budgets(budget("10", "* * * * *", "20m0s", "Underutilized"))), upstream: admitted,
		}),
		poolCase("Disruption > should succeed when creating a budget with valid reasons > should allow disruption reason Empty", upstreamCase{
			build: pool(budgets(budget("10", "* * * * *", "20m0s", "Empty"))), upstream: admitted,
		}),
		poolCase("Disruption > should succeed when creating a budget with valid reasons > should allow disruption reason Unhealthy", upstreamCase{
			build: pool(budgets(budget("10", "* * * * *", "20m0s", "Unhealthy"))), upstream: admitted,
		}),
		poolCase("Disruption > should fail when creating a budget with invalid reasons > should not allow invalid reason", upstreamCase{
			build: pool(budgets(budget("10", "* * * * *", "20m0s", "invalid"))), upstream: refused,
			says: `spec.disruption.budgets[0].reasons[0]: Unsupported value: "invalid"`,
		}),
		poolCase("Disruption > should fail when creating a budget with invalid reasons > should not allow expired disruption reason", upstreamCase{
			build: pool(budgets(budget("10", "* * * * *", "20m0s", "expired"))), upstream: refused,
			says: `spec.disruption.budgets[0].reasons[0]: Unsupported value: "expired"`,
		}),
		poolCase("Disruption > should fail when creating a budget with invalid reasons > should not allow empty reason", upstreamCase{
			build: pool(budgets(budget("10", "* * * * *", "20m0s", ""))), upstream: refused,
			says: `spec.disruption.budgets[0].reasons[0]: Unsupported value: ""`,
		}),
		poolCase("Disruption > should allow setting multiple reasons", upstreamCase{
			build: pool(budgets(budget("10", "* * * * *", "20m0s", "Drifted", "Empty"))), upstream: admitted,
		}),

		// ---- nodepool_validation_cel_test.go: Taints ----
		poolCase("Taints > should succeed for valid taints", upstreamCase{
			build: pool(taints("taints",
				taint("a", "b", "NoSchedule"),
				taint("c", "d", "NoExecute"),
				taint("e", "f", "PreferNoSchedule"),
				taint("Test", "f", "PreferNoSchedule"),
				taint("test.com/Test", "f", "PreferNoSchedule"),
				taint("test.com.com/test", "f", "PreferNoSchedule"),
				taint("key-only", "", "NoExecute"),
			)),
			upstream: admitted,
		}),
		invalidTaintKey("test.com.com}"),
		invalidTaintKey("Test.com/test"),
		invalidTaintKey("test/test/test"),
		invalidTaintKey("test/"),
		invalidTaintKey("/test"),
		poolCase("Taints > should fail at runtime for taint keys that are too long [prefix of 264 characters]", upstreamCase{
			build:    pool(taints("taints", taint(longPrefixKey(), "", "NoSchedule"))),
			upstream: flagged, ours: refused, why: refusesAtAdmission,
			says: "taint keys must be qualified names",
		}),
		poolCase("Taints > should fail at runtime for taint keys that are too long [name of 255 characters]", upstreamCase{
			build:    pool(taints("taints", taint(longNameKey(), "", "NoSchedule"))),
			upstream: flagged, ours: refused, why: refusesAtAdmission,
			says: "taint keys must be qualified names",
		}),
		poolCase("Taints > should fail for missing taint key", upstreamCase{
			build: pool(taints("taints", taint("", "", "NoSchedule"))), upstream: refused,
			says: `spec.template.spec.taints[0].key`,
		}),
		poolCase("Taints > should fail for invalid taint value", upstreamCase{
			build: pool(taints("taints", taint("invalid-value", "???", "NoSchedule"))), upstream: refused,
			says: `spec.template.spec.taints[0].value: Invalid value: "???"`,
		}),
		poolCase("Taints > should fail for invalid taint effect", upstreamCase{
			build: pool(taints("taints", taint("invalid-effect", "", "???"))), upstream: refused,
			says: `spec.template.spec.taints[0].effect: Unsupported value: "???"`,
		}),
		poolCase("Taints > should not fail for same key with different effects", upstreamCase{
			build:    pool(taints("taints", taint("a", "", "NoSchedule"), taint("a", "", "NoExecute"))),
			upstream: admitted,
		}),

		// ---- nodepool_validation_cel_test.go: Requirements ----
		poolCase("Requirements > should succeed for valid requirement keys", upstreamCase{
			build: pool(requirements(
				requirement("Test", "Exists"),
				requirement("test.com/Test", "Exists"),
				requirement("test.com.com/test", "Exists"),
				requirement("key-only", "Exists"),
			)),
			upstream: admitted,
		}),
		invalidRequirementKey(poolCase, pool, "spec.template.spec", "test.com.com}"),
		invalidRequirementKey(poolCase, pool, "spec.template.spec", "Test.com/test"),
		invalidRequirementKey(poolCase, pool, "spec.template.spec", "test/test/test"),
		invalidRequirementKey(poolCase, pool, "spec.template.spec", "test/"),
		invalidRequirementKey(poolCase, pool, "spec.template.spec", "/test"),
		poolCase("Requirements > should fail at runtime for requirement keys that are too long [prefix of 264 characters]", upstreamCase{
			build:    pool(requirements(requirement(longPrefixKey(), "Exists"))),
			upstream: flagged, ours: refused, why: refusesAtAdmission,
			says: "requirement keys must be qualified names",
		}),
		poolCase("Requirements > should fail at runtime for requirement keys that are too long [name of 255 characters]", upstreamCase{
			build:    pool(requirements(requirement(longNameKey(), "Exists"))),
			upstream: flagged, ours: refused, why: refusesAtAdmission,
			says: "requirement keys must be qualified names",
		}),
		poolCase("Requirements > should fail for the karpenter.sh/nodepool label", upstreamCase{
			build: pool(requirements(requirement("karpenter.sh/nodepool", "In", "Quillfeather"))), upstream: refused,
			says: `label "karpenter.sh/nodepool" is restricted`,
		}),
		supportedOps(poolCase, pool),
		unsupportedOp(poolCase, pool, "spec.template.spec"),
		restrictedDomain(poolCase, pool),
		restrictedLabel(poolCase, pool, "spec.template.spec"),
		poolCase("Requirements > should allow kubernetes domains [kubernetes.io]", upstreamCase{
			build: pool(requirements(requirement("kubernetes.io/test", "In", "test"))), upstream: admitted,
		}),
		poolCase("Requirements > should allow kubernetes domains [k8s.io]", upstreamCase{
			build: pool(requirements(requirement("k8s.io/test", "In", "test"))), upstream: admitted,
		}),
		poolCase("Requirements > should allow kubernetes subdomains exceptions [kubernetes.io]", upstreamCase{
			build: pool(requirements(requirement("subdomain.kubernetes.io/test", "In", "test"))), upstream: admitted,
		}),
		poolCase("Requirements > should allow kubernetes subdomains exceptions [k8s.io]", upstreamCase{
			build: pool(requirements(requirement("subdomain.k8s.io/test", "In", "test"))), upstream: admitted,
		}),
		// Upstream's well-known labels less karpenter.sh/nodepool and karpenter.sh/capacity-type.
		wellKnown(poolCase, pool, "topology.kubernetes.io/zone"),
		wellKnown(poolCase, pool, "topology.kubernetes.io/region"),
		wellKnown(poolCase, pool, "node.kubernetes.io/instance-type"),
		wellKnown(poolCase, pool, "kubernetes.io/arch"),
		wellKnown(poolCase, pool, "kubernetes.io/os"),
		wellKnown(poolCase, pool, "node.kubernetes.io/windows-build"),
		overlapping(poolCase, pool),
		noRequirements(poolCase, pool),
		badIntegerValues(poolCase, pool, "Gt", "Lt", "should fail with invalid GT or LT values"),
		badIntegerValues(poolCase, pool, "Gte", "Lte", "should fail with invalid GTE or LTE values"),
		minValues(poolCase, pool, "spec.template.spec"),
		poolCase("Requirements > should allow more than 50 values if minValues is not specified.", upstreamCase{
			build: pool(requirements(requirement("node.kubernetes.io/instance-type", "In", numbered("instance", 90)...))), upstream: admitted,
		}),
		poolCase("Requirements > should error when minValues is greater than the number of unique values specified within In operator", upstreamCase{
			build:    pool(requirements(withMinValues(requirement("node.kubernetes.io/instance-type", "In", "insance-type-1"), 2))),
			upstream: refused,
			says:     "requirements with 'minValues' must have at least that many values specified in the 'values' field",
		}),

		// ---- nodepool_validation_cel_test.go: Labels ----
		poolCase("Labels > should allow unrecognized labels", upstreamCase{
			build: pool(labels("foo", "Gravelwhistle")), upstream: admitted,
		}),
		poolCase("Labels > should fail for the karpenter.sh/nodepool label", upstreamCase{
			build: pool(labels("karpenter.sh/nodepool", "Gravelwhistle")), upstream: refused,
			says: `label "karpenter.sh/nodepool" is restricted`,
		}),
		poolCase("Labels > should fail for invalid label keys", upstreamCase{
			build:    pool(labels("spaces are not allowed", "Gravelwhistle")),
			upstream: flagged, ours: refused, why: refusesAtAdmission,
			says: "label keys must be qualified names",
		}),
		poolCase("Labels > should fail at runtime for label keys that are too long [prefix of 264 characters]", upstreamCase{
			build:    pool(labels(longPrefixKey(), "Gravelwhistle")),
			upstream: flagged, ours: refused, why: refusesAtAdmission,
			says: "label keys must be qualified names",
		}),
		poolCase("Labels > should fail at runtime for label keys that are too long [name of 255 characters]", upstreamCase{
			build:    pool(labels(longNameKey(), "Gravelwhistle")),
			upstream: flagged, ours: refused, why: refusesAtAdmission,
			says: "label keys must be qualified names",
		}),
		poolCase("Labels > should fail for invalid label values", upstreamCase{
			build: pool(labels("Gravelwhistle", "/ is not allowed")), upstream: refused,
			says: `spec.template.metadata.labels.Gravelwhistle: Invalid value: "/ is not allowed"`,
		}),
		poolCase("Labels > should fail for restricted label domains [karpenter.sh]", upstreamCase{
			build: pool(labels("karpenter.sh/unknown", "Gravelwhistle")), upstream: refused,
			says: `label domain "karpenter.sh" is restricted`,
		}),
		poolCase("Labels > should allow labels kOps require", upstreamCase{
			build: pool(labels("kops.k8s.io/instancegroup", "karpenter-nodes", "kops.k8s.io/gpu", "1")), upstream: admitted,
		}),
		poolCase("Labels > should allow labels in kubernetes domains [kubernetes.io]", upstreamCase{
			build: pool(labels("kubernetes.io", "test-value")), upstream: admitted,
		}),
		poolCase("Labels > should allow labels in kubernetes domains [k8s.io]", upstreamCase{
			build: pool(labels("k8s.io", "test-value")), upstream: admitted,
		}),
		poolCase("Labels > should allow labels prefixed with the kubernetes domain [kubernetes.io]", upstreamCase{
			build: pool(labels("kubernetes.io/key", "test-value")), upstream: admitted,
		}),
		poolCase("Labels > should allow labels prefixed with the kubernetes domain [k8s.io]", upstreamCase{
			build: pool(labels("k8s.io/key", "test-value")), upstream: admitted,
		}),
		poolCase("Labels > should allow subdomain labels in restricted domains exceptions list [kubernetes.io]", upstreamCase{
			build: pool(labels("subdomain.kubernetes.io", "test-value")), upstream: admitted,
		}),
		poolCase("Labels > should allow subdomain labels in restricted domains exceptions list [k8s.io]", upstreamCase{
			build: pool(labels("subdomain.k8s.io", "test-value")), upstream: admitted,
		}),
		poolCase("Labels > should allow subdomain labels prefixed with the kubernetes domain [kubernetes.io]", upstreamCase{
			build: pool(labels("subdomain.kubernetes.io/key", "test-value")), upstream: admitted,
		}),
		poolCase("Labels > should allow subdomain labels prefixed with the kubernetes domain [k8s.io]", upstreamCase{
			build: pool(labels("subdomain.k8s.io/key", "test-value")), upstream: admitted,
		}),

		// ---- nodepool_validation_cel_test.go: TerminationGracePeriod ----
		gracePeriod(poolCase, pool, "spec.template.spec", "single unit", "30s", admitted),
		gracePeriod(poolCase, pool, "spec.template.spec", "multiple units", "1h30m5s", admitted),
		gracePeriod(poolCase, pool, "spec.template.spec", "negative", "-1s", refused),
		gracePeriod(poolCase, pool, "spec.template.spec", "invalid unit", "1hr", refused),
		gracePeriod(poolCase, pool, "spec.template.spec", "never", "Never", refused),
		gracePeriod(poolCase, pool, "spec.template.spec", "partial match", "FooNever", refused),

		// ---- nodepool_validation_cel_test.go: NodeClassRef ----
		poolCase("NodeClassRef > should fail to mutate group", upstreamCase{
			build:    pool(),
			then:     at("karpenter.test.mutated.sh", "spec", "template", "spec", "nodeClassRef", "group"),
			upstream: refused,
			says:     "nodeClassRef.group is immutable",
			note:     "upstream's case sends the changed NodePool with a second create, which fails as the name is taken; the entry sends it as an update, which is what the case is named for",
		}),
		poolCase("NodeClassRef > should fail to mutate kind", upstreamCase{
			build:    pool(),
			then:     at("TestNodeClass2", "spec", "template", "spec", "nodeClassRef", "kind"),
			upstream: refused,
			says:     "nodeClassRef.kind is immutable",
			note:     "upstream's case writes TestNodeClass2 into the group and sends a second create; the entry changes the kind, as the case is named, in an update",
		}),
		poolCase("NodeClassRef > should fail if group is unset", upstreamCase{
			build: pool(at("", "spec", "template", "spec", "nodeClassRef", "group")), upstream: refused,
			says: "group may not be empty",
		}),
		poolCase("NodeClassRef > should fail if kind is unset", upstreamCase{
			build: pool(at("", "spec", "template", "spec", "nodeClassRef", "kind")), upstream: refused,
			says: "kind may not be empty",
		}),
		poolCase("NodeClassRef > should fail if name is unset", upstreamCase{
			build: pool(at("", "spec", "template", "spec", "nodeClassRef", "name")), upstream: refused,
			says: "name may not be empty",
		}),

		// ---- nodepool_validation_cel_test.go: Replicas ----
		poolCase("Replicas > Valid Replicas Values > should succeed when replicas is set to a positive value", upstreamCase{
			build: pool(at(int64(5), "spec", "replicas")), upstream: admitted,
		}),
		poolCase("Replicas > Valid Replicas Values > should succeed when replicas is set to zero", upstreamCase{
			build: pool(at(int64(0), "spec", "replicas")), upstream: admitted,
		}),
		poolCase("Replicas > Valid Replicas Values > should succeed when replicas is set to a large value", upstreamCase{
			build: pool(at(int64(1000), "spec", "replicas")), upstream: admitted,
		}),
		poolCase("Replicas > Invalid Replicas Values > should fail when replicas is set to a negative value", upstreamCase{
			build: pool(at(int64(-100), "spec", "replicas")), upstream: refused,
			says: "spec.replicas: Invalid value: -100",
		}),
		staticWith("should fail for incompatible fields > limits.cpu", at(map[string]any{"cpu": "1k"}, "spec", "limits"), refused,
			"only 'limits.nodes' is supported on static NodePools"),
		staticWith("should fail for incompatible fields > limits.memory", at(map[string]any{"memory": "2000Gi"}, "spec", "limits"), refused,
			"only 'limits.nodes' is supported on static NodePools"),
		staticWith("should fail for incompatible fields > limits.pods", at(map[string]any{"pods": "10"}, "spec", "limits"), refused,
			"only 'limits.nodes' is supported on static NodePools"),
		staticWith("should fail for incompatible fields > limits.ephemeral-storage", at(map[string]any{"ephemeral-storage": "10Gi"}, "spec", "limits"), refused,
			"only 'limits.nodes' is supported on static NodePools"),
		staticWith("should fail for incompatible fields > weight", at(int64(25), "spec", "weight"), refused,
			"'weight' is not supported on static NodePools"),
		staticWith("should succeed for compatible fields > limits.nodes", at(map[string]any{"nodes": "100"}, "spec", "limits"), admitted, ""),
		staticWith("should succeed for compatible fields > disruption with multiple budgets", at(map[string]any{
			"consolidationPolicy": "WhenEmptyOrUnderutilized",
			"consolidateAfter":    "5m",
			"budgets": []any{
				budget("20%", "0 9 * * mon-fri", "8h0m0s", "Drifted", "Empty"),
				budget("30%", "0 22 * * sat,sun", "4h0m0s", "Underutilized"),
				budget("5", "", ""),
			},
		}, "spec", "disruption"), admitted, ""),
		staticWith("should succeed for compatible fields > template labels", labels("environment", "production"), admitted, ""),
		staticWith("should succeed for compatible fields > template annotations",
			at(map[string]any{"example.com/last-updated": "2024-01-01"}, "spec", "template", "metadata", "annotations"), admitted, ""),
		staticWith("should succeed for compatible fields > taints", taints("taints", taint("gpu-workload", "enabled", "NoSchedule")), admitted, ""),
		staticWith("should succeed for compatible fields > startup taints",
			taints("startupTaints", taint("example.com/initializing", "true", "NoSchedule")), admitted, ""),
		poolCase("Replicas > should succeed for compatible fields > requirements", upstreamCase{
			build: pool(at(int64(10), "spec", "replicas"), requirements(
				withMinValues(requirement("node.kubernetes.io/instance-type", "In", "m5.large", "m5.xlarge", "m5.2xlarge", "c5.large", "c5.xlarge", "r5.large", "r5.xlarge"), 3),
				requirement("topology.kubernetes.io/zone", "In", "us-west-2a", "us-west-2b", "us-west-2c"),
				requirement("karpenter.sh/capacity-type", "In", "on-demand", "spot"),
				requirement("kubernetes.io/arch", "In", "amd64"),
				requirement("karpenter.k8s.aws/instance-memory", "Gt", "8192"),
				requirement("karpenter.k8s.aws/instance-cpu", "Lt", "64"),
			)),
			upstream: admitted, ours: refused, why: refusesOtherProviders,
			says: "requirement key karpenter.k8s.aws/instance-memory belongs to another cloud provider; on KakaoCloud use",
		}),
		staticWith("should succeed for compatible fields > expireAfter", spec("expireAfter", "72h"), admitted, ""),
		staticWith("should succeed for compatible fields > terminationGracePeriod", spec("terminationGracePeriod", "5m0s"), admitted, ""),
		poolCase("Replicas > should succeed when consolidateAfter is omitted on a static NodePool", upstreamCase{
			build:    pool(at(int64(3), "spec", "replicas"), without("spec", "disruption", "consolidateAfter")),
			upstream: admitted,
		}),
		poolCase("Replicas > Update Scenarios > should succeed when increasing replicas in a NodePool", upstreamCase{
			build: pool(at(int64(3), "spec", "replicas")), then: at(int64(5), "spec", "replicas"), upstream: admitted,
			stored: []storedField{storedAs(int64(5), "spec", "replicas")},
		}),
		poolCase("Replicas > Update Scenarios > should fail when changing the NodePool from static to dynamic", upstreamCase{
			build: pool(at(int64(3), "spec", "replicas")), then: without("spec", "replicas"), upstream: refused,
			says: "a NodePool cannot switch between static (replicas set) and dynamic (replicas unset) provisioning",
		}),
		poolCase("Replicas > Update Scenarios > should fail when changing the NodePool from dynamic to static", upstreamCase{
			build: pool(), then: at(int64(3), "spec", "replicas"), upstream: refused,
			says: "a NodePool cannot switch between static (replicas set) and dynamic (replicas unset) provisioning",
		}),
		poolCase("Replicas > Update Scenarios > should succeed when changing the static NodePool nodes limit", upstreamCase{
			build:    pool(at(int64(3), "spec", "replicas"), at(map[string]any{"nodes": "10"}, "spec", "limits")),
			then:     at(map[string]any{"nodes": "100"}, "spec", "limits"),
			upstream: admitted,
			stored:   []storedField{storedAs(map[string]any{"nodes": "100"}, "spec", "limits")},
		}),

		// ---- nodeclaim_validation_cel_test.go ----
		claimCase("Taints > should succeed for valid taints", upstreamCase{
			build: claim(taints("taints",
				taint("a", "b", "NoSchedule"),
				taint("c", "d", "NoExecute"),
				taint("e", "f", "PreferNoSchedule"),
				taint("key-only", "", "NoExecute"),
			)),
			upstream: admitted,
		}),
		claimCase("Taints > should fail for invalid taint keys", upstreamCase{
			build: claim(taints("taints", taint("???", "", ""))), upstream: refused,
			says: `spec.taints[0].key: Invalid value: "???"`,
		}),
		claimCase("Taints > should fail for missing taint key", upstreamCase{
			build: claim(taints("taints", taint("", "", "NoSchedule"))), upstream: refused,
			says: "spec.taints[0].key",
		}),
		claimCase("Taints > should fail for invalid taint value", upstreamCase{
			build: claim(taints("taints", taint("invalid-value", "???", "NoSchedule"))), upstream: refused,
			says: `spec.taints[0].value: Invalid value: "???"`,
		}),
		claimCase("Taints > should fail for invalid taint effect", upstreamCase{
			build: claim(taints("taints", taint("invalid-effect", "", "???"))), upstream: refused,
			says: `spec.taints[0].effect: Unsupported value: "???"`,
		}),
		claimCase("Taints > should not fail for same key with different effects", upstreamCase{
			build:    claim(taints("taints", taint("a", "", "NoSchedule"), taint("a", "", "NoExecute"))),
			upstream: admitted,
		}),
		claimCase("NodeClassRef > should succeed for valid group", upstreamCase{
			build:    claim(at(map[string]any{"kind": "TestNodeClass", "name": "nodeclass-test", "group": "karpenter.test.sh"}, "spec", "nodeClassRef")),
			upstream: admitted, ours: refused, why: refusesOtherNodeClasses,
			says: "nodeClassRef must reference a KCNodeClass (group karpenter.kakaocloud.com, kind KCNodeClass), not TestNodeClass.karpenter.test.sh",
		}),
		claimCase("NodeClassRef > should fail for invalid group", upstreamCase{
			build:    claim(at(map[string]any{"kind": "TestNodeClass", "name": "nodeclass-test", "group": "karpenter.test.sh/v1"}, "spec", "nodeClassRef")),
			upstream: refused,
			says:     `spec.nodeClassRef.group: Invalid value: "karpenter.test.sh/v1"`,
		}),
		supportedOps(claimCase, claim),
		unsupportedOp(claimCase, claim, "spec"),
		restrictedDomain(claimCase, claim),
		restrictedLabel(claimCase, claim, "spec"),
		claimCase("Requirements > should allow kubernetes domains [kubernetes.io]", upstreamCase{
			build: claim(requirements(requirement("kubernetes.io/test", "In", "test"))), upstream: admitted,
		}),
		claimCase("Requirements > should allow kubernetes domains [k8s.io]", upstreamCase{
			build: claim(requirements(requirement("k8s.io/test", "In", "test"))), upstream: admitted,
		}),
		claimCase("Requirements > should allow kubernetes subdomains [kubernetes.io]", upstreamCase{
			build: claim(requirements(requirement("subdomain.kubernetes.io/test", "In", "test"))), upstream: admitted,
		}),
		claimCase("Requirements > should allow kubernetes subdomains [k8s.io]", upstreamCase{
			build: claim(requirements(requirement("subdomain.k8s.io/test", "In", "test"))), upstream: admitted,
		}),
		// Upstream's well-known labels less karpenter.sh/nodepool.
		wellKnown(claimCase, claim, "topology.kubernetes.io/zone"),
		wellKnown(claimCase, claim, "topology.kubernetes.io/region"),
		wellKnown(claimCase, claim, "node.kubernetes.io/instance-type"),
		wellKnown(claimCase, claim, "kubernetes.io/arch"),
		wellKnown(claimCase, claim, "kubernetes.io/os"),
		wellKnown(claimCase, claim, "karpenter.sh/capacity-type"),
		wellKnown(claimCase, claim, "node.kubernetes.io/windows-build"),
		overlapping(claimCase, claim),
		noRequirements(claimCase, claim),
		badIntegerValues(claimCase, claim, "Gt", "Lt", "should fail with invalid GT or LT values"),
		badIntegerValues(claimCase, claim, "Gte", "Lte", "should fail with invalid GTE or LTE values"),
		minValues(claimCase, claim, "spec"),
		claimCase("Requirements > should allow more than 50 values if minValues is not specified.", upstreamCase{
			build: claim(requirements(requirement("node.kubernetes.io/instance-type", "In", numbered("instance", 90)...))), upstream: admitted,
		}),
		claimCase("Requirements > should error when minValues is greater than the number of unique values specified within In operator", upstreamCase{
			build:    claim(requirements(withMinValues(requirement("node.kubernetes.io/instance-type", "In", "insance-type-1"), 2))),
			upstream: refused,
			says:     "requirements with 'minValues' must have at least that many values specified in the 'values' field",
		}),
		claimCase("Requirements > should error when requirements is greater than 100", upstreamCase{
			build: claim(func(u *unstructured.Unstructured) {
				rs := make([]map[string]any, 101)
				for i := range rs {
					rs[i] = requirement(fmt.Sprintf("fernwhistle-%d-k3q9x0b2za", i), "In", fmt.Sprintf("bramblecrest-%d-p7w2m5n8ty", i))
				}
				requirements(rs...)(u)
			}),
			upstream: refused,
			says:     "spec.requirements: Too many: 101: must have at most 100 items",
		}),
		gracePeriod(claimCase, claim, "spec", "single unit", "30s", admitted),
		gracePeriod(claimCase, claim, "spec", "multiple units", "1h30m5s", admitted),
		gracePeriod(claimCase, claim, "spec", "negative", "-1s", refused),
		gracePeriod(claimCase, claim, "spec", "invalid unit", "1hr", refused),
		gracePeriod(claimCase, claim, "spec", "never", "Never", refused),
		gracePeriod(claimCase, claim, "spec", "partial match", "FooNever", refused),
		claimCase("ExpireAfter > should succeed on a valid expireAfter > single unit", upstreamCase{
			build: claim(spec("expireAfter", "30s")), upstream: admitted,
		}),
		claimCase("ExpireAfter > should succeed on a valid expireAfter > multiple units", upstreamCase{
			build: claim(spec("expireAfter", "1h30m5s")), upstream: admitted,
		}),
		claimCase("ExpireAfter > should succeed on a valid expireAfter > never", upstreamCase{
			build: claim(spec("expireAfter", "Never")), upstream: admitted,
		}),
		claimCase("ExpireAfter > should fail on an invalid expireAfter > negative", upstreamCase{
			build: claim(spec("expireAfter", "-1s")), upstream: refused,
			says: `spec.expireAfter: Invalid value: "-1s"`,
		}),
		claimCase("ExpireAfter > should fail on an invalid expireAfter > invalid unit", upstreamCase{
			build: claim(spec("expireAfter", "1hr")), upstream: refused,
			says: `spec.expireAfter: Invalid value: "1hr"`,
		}),
		claimCase("ExpireAfter > should fail on an invalid expireAfter > partial match", upstreamCase{
			build: claim(spec("expireAfter", "FooNever")), upstream: refused,
			says: `spec.expireAfter: Invalid value: "FooNever"`,
		}),

		// ---- nodepool_default_test.go ----
		entry(nodePoolDefaultFile, "CEL/Default > Defaults/TopLevel > should default the disruption stanza when undefined", upstreamCase{
			build:    pool(),
			upstream: admitted,
			stored: []storedField{
				storedAs("Never", "spec", "disruption", "consolidateAfter"),
				storedAs("WhenEmptyOrUnderutilized", "spec", "disruption", "consolidationPolicy"),
				storedAs([]any{map[string]any{"nodes": "10%"}}, "spec", "disruption", "budgets"),
			},
			note: "upstream's client writes its zero consolidateAfter as Never, which both CRDs keep; upstream's check of a zero duration passes on it. The other two fields are defaulted",
		}),

		// ---- nodepool_budgets_test.go ----
		// These cases compute what budgets allow rather than send them; each entry sends a
		// NodePool with the budgets the case reads, so that both CRDs admit or refuse it alike.
		// What the budgets then allow is the disruption controller's and is tested with it.
		budgetCase("GetAllowedDisruptionsByReason > should return 0 for all reasons if a budget is active for all reasons", upstreamCase{
			build: pool(budgetsWith(func(bs []map[string]any) []map[string]any {
				bs[5]["schedule"] = "* * * * *"
				return bs
			})),
			upstream: admitted,
		}),
		budgetCase("GetAllowedDisruptionsByReason > should return MaxInt32 for all reasons when there are no active budgets", upstreamCase{
			build: pool(budgetsWith(func(bs []map[string]any) []map[string]any {
				for _, b := range bs {
					b["schedule"] = "@yearly"
				}
				return bs
			})),
			upstream: admitted,
		}),
		budgetCase("GetAllowedDisruptionsByReason > should ignore reason-defined budgets when inactive", upstreamCase{
			build: pool(budgetsWith(func(bs []map[string]any) []map[string]any {
				bs[3]["schedule"] = "@yearly"
				bs[4]["schedule"] = "@yearly"
				return bs
			})),
			upstream: admitted,
		}),
		budgetCase("GetAllowedDisruptionsByReason > should return the budget for all disruption reasons when undefined", upstreamCase{
			build: pool(budgetsWith(func(bs []map[string]any) []map[string]any { return bs[:1] })), upstream: admitted,
		}),
		budgetCase("GetAllowedDisruptionsByReason > should get the minimum budget for each reason", upstreamCase{
			build: pool(budgetsWith(func(bs []map[string]any) []map[string]any {
				return append(bs, budget("4", "* * * * *", "1h0m0s", "Empty"))
			})),
			upstream: admitted,
		}),
		budgetCase("AllowedDisruptions > should return zero values if a schedule is invalid", upstreamCase{
			build:    pool(budgets(budget("10", "@wrongly", "1h0m0s"))),
			upstream: refused,
			says:     `spec.disruption.budgets[0].schedule: Invalid value: "@wrongly"`,
			note:     "upstream's case finds the schedule unreadable; its CRD's pattern refuses it too",
		}),
		budgetCase("AllowedDisruptions > should return zero values if a nodes value is invalid", upstreamCase{
			build:    pool(budgets(budget("1000a%", "* * * * *", "1h0m0s"))),
			upstream: refused,
			says:     `spec.disruption.budgets[0].nodes: Invalid value: "1000a%"`,
			note:     "upstream's case finds the value unreadable; its CRD's pattern refuses it too",
		}),
		budgetCase("AllowedDisruptions > should return MaxInt32 when a budget is inactive", upstreamCase{
			build: pool(budgets(budget("10", "@yearly", "1h0m0s"))), upstream: admitted,
		}),
		budgetCase("AllowedDisruptions > should return the int value when a budget is active", upstreamCase{
			build: pool(budgets(budget("10", "* * * * *", "1h0m0s"))), upstream: admitted,
		}),
		budgetCase("AllowedDisruptions > should return the string value when a budget is active", upstreamCase{
			build: pool(budgets(budget("100%", "* * * * *", "1h0m0s"))), upstream: admitted,
		}),
		budgetCase("IsActive > should always consider a schedule and time in UTC", upstreamCase{
			build: pool(budgets(budget("10", "@daily", "30m0s"))), upstream: admitted,
		}),
		budgetCase("IsActive > should return that a schedule is active when schedule and duration are nil", upstreamCase{
			build: pool(budgets(budget("10", "", ""))), upstream: admitted,
		}),
		budgetCase("IsActive > should return that a schedule is active", upstreamCase{
			build: pool(budgets(budget("10", "* * * * *", "1h0m0s"))), upstream: admitted,
		}),
		budgetCase("IsActive > should return that a schedule is inactive", upstreamCase{
			build: pool(budgets(budget("10", "@yearly", "1h0m0s"))), upstream: admitted,
		}),
		budgetCase("IsActive > should return that a schedule is active when the schedule hit is in the middle of the duration", upstreamCase{
			build: pool(budgets(budget("10", "@yearly", "24h0m0s"))), upstream: admitted,
		}),
		budgetCase("IsActive > should return that a schedule is active when the duration is longer than the recurrence", upstreamCase{
			build: pool(budgets(budget("10", "@daily", "48h0m0s"))), upstream: admitted,
		}),
		budgetCase("IsActive > should return that a schedule is inactive when the schedule hit is after the duration", upstreamCase{
			build: pool(budgets(budget("10", "30 6 * * SUN", "6h0m0s"))), upstream: admitted,
		}),
		budgetCase("IsActive > should return an error indicating why the cron fails to parse", upstreamCase{
			build:    pool(budgets(budget("10", "0 0 * * tue-mon", "6h0m0s"))),
			upstream: flagged, ours: refused, why: refusesAtAdmission,
			// Upstream's case checks this part of the message.
			says: "beginning of range (2) beyond end of range (1)",
		}),
	)
})

func invalidPolicy(name, value string) TableEntry {
	return poolCase("Disruption > should fail on an invalid consolidationPolicy > "+name, upstreamCase{
		build: pool(at(value, "spec", "disruption", "consolidationPolicy")), upstream: refused,
		says: fmt.Sprintf("spec.disruption.consolidationPolicy: Unsupported value: %q", value),
	})
}

func invalidTaintKey(key string) TableEntry {
	return poolCase(fmt.Sprintf("Taints > should fail for invalid taint keys [%s]", key), upstreamCase{
		build: pool(taints("taints", taint(key, "", "NoSchedule"))), upstream: refused,
		says: fmt.Sprintf("spec.template.spec.taints[0].key: Invalid value: %q", key),
	})
}

// longPrefixKey and longNameKey are upstream's too-long keys: a prefix of 264 characters (a
// DNS subdomain has at most 253), and a name of 255 (at most 63).
func longPrefixKey() string {
	return "test.com.test." + strings.Repeat("k7", 125) + "/test"
}

func longNameKey() string {
	return "test.com.test/test-" + strings.Repeat("q3", 125)
}

type caseFunc func(string, upstreamCase) TableEntry

type builder func(...edit) func() *unstructured.Unstructured

func invalidRequirementKey(c caseFunc, b builder, parent, key string) TableEntry {
	return c(fmt.Sprintf("Requirements > should fail for invalid requirement keys [%s]", key), upstreamCase{
		build: b(requirements(requirement(key, "Exists"))), upstream: refused,
		says: fmt.Sprintf("%s.requirements[0].key: Invalid value: %q", parent, key),
	})
}

func supportedOps(c caseFunc, b builder) TableEntry {
	return c("Requirements > should allow supported ops", upstreamCase{
		build: b(requirements(
			requirement("topology.kubernetes.io/zone", "In", "test"),
			requirement("topology.kubernetes.io/zone", "Gt", "1"),
			requirement("topology.kubernetes.io/zone", "Lt", "1"),
			requirement("topology.kubernetes.io/zone", "NotIn"),
			requirement("topology.kubernetes.io/zone", "Exists"),
		)),
		upstream: admitted,
	})
}

func unsupportedOp(c caseFunc, b builder, parent string) TableEntry {
	return c("Requirements > should fail for unsupported ops [unknown]", upstreamCase{
		build: b(requirements(requirement("topology.kubernetes.io/zone", "unknown", "test"))), upstream: refused,
		says: parent + `.requirements[0].operator: Unsupported value: "unknown"`,
	})
}

// restrictedDomain and restrictedLabel loop, upstream, over its restricted domains (karpenter.sh)
// and restricted labels (kubernetes.io/hostname), each with "/test" appended.
func restrictedDomain(c caseFunc, b builder) TableEntry {
	return c("Requirements > should fail for restricted domains [karpenter.sh]", upstreamCase{
		build: b(requirements(requirement("karpenter.sh/test", "In", "test"))), upstream: refused,
		says: `label domain "karpenter.sh" is restricted`,
	})
}

func restrictedLabel(c caseFunc, b builder, parent string) TableEntry {
	return c("Requirements > should fail for restricted labels [kubernetes.io/hostname]", upstreamCase{
		build: b(requirements(requirement("kubernetes.io/hostname/test", "In", "test"))), upstream: refused,
		says: parent + `.requirements[0].key: Invalid value: "kubernetes.io/hostname/test"`,
	})
}

func wellKnown(c caseFunc, b builder, key string) TableEntry {
	return c(fmt.Sprintf("Requirements > should allow well known label exceptions [%s]", key), upstreamCase{
		build: b(requirements(requirement(key, "In", "test"))), upstream: admitted,
	})
}

func overlapping(c caseFunc, b builder) TableEntry {
	return c("Requirements > should allow non-empty set after removing overlapped value", upstreamCase{
		build: b(requirements(
			requirement("topology.kubernetes.io/zone", "In", "test", "foo"),
			requirement("topology.kubernetes.io/zone", "NotIn", "test", "bar"),
		)),
		upstream: admitted,
	})
}

func noRequirements(c caseFunc, b builder) TableEntry {
	return c("Requirements > should allow empty requirements", upstreamCase{
		build: b(requirements()), upstream: admitted,
	})
}

// badIntegerValues returns upstream's eight requirements of one case, one entry each: no
// value, two values, a word and a negative number, for each of the two operators.
func badIntegerValues(c caseFunc, b builder, first, second, it string) []TableEntry {
	var out []TableEntry
	for _, op := range []string{first, second} {
		for _, values := range [][]string{nil, {"1", "2"}, {"a"}, {"-1"}} {
			out = append(out, c(fmt.Sprintf("Requirements > %s [%s %q]", it, op, values), upstreamCase{
				build: b(requirements(requirement("topology.kubernetes.io/zone", op, values...))), upstream: refused,
				says: "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value",
			}))
		}
	}
	return out
}

// minValues returns the three cases of minValues out of its bounds.
func minValues(c caseFunc, b builder, parent string) []TableEntry {
	return []TableEntry{
		c("Requirements > should error when minValues is negative", upstreamCase{
			build:    b(requirements(withMinValues(requirement("node.kubernetes.io/instance-type", "In", "insance-type-1"), -1))),
			upstream: refused,
			says:     parent + ".requirements[0].minValues: Invalid value: -1",
		}),
		c("Requirements > should error when minValues is zero", upstreamCase{
			build:    b(requirements(withMinValues(requirement("node.kubernetes.io/instance-type", "In", "insance-type-1"), 0))),
			upstream: refused,
			says:     parent + ".requirements[0].minValues: Invalid value: 0",
		}),
		c("Requirements > should error when minValues is more than 50", upstreamCase{
			build:    b(requirements(withMinValues(requirement("node.kubernetes.io/instance-type", "Exists"), 51))),
			upstream: refused,
			says:     parent + ".requirements[0].minValues: Invalid value: 51",
		}),
	}
}

func gracePeriod(c caseFunc, b builder, parent, name, value string, v verdict) TableEntry {
	it := "TerminationGracePeriod > should succeed on a valid terminationGracePeriod > "
	if v == refused {
		it = "TerminationGracePeriod > should fail on an invalid terminationGracePeriod > "
	}
	cs := upstreamCase{build: b(spec("terminationGracePeriod", value)), upstream: v}
	if v == refused {
		cs.says = fmt.Sprintf("%s.terminationGracePeriod: Invalid value: %q", parent, value)
	}
	return c(it+name, cs)
}

func staticWith(it string, e edit, v verdict, says string) TableEntry {
	return poolCase("Replicas > "+it, upstreamCase{
		build: pool(e, at(int64(10), "spec", "replicas")), upstream: v, says: says,
	})
}
