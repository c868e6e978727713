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

package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// timeline polls the cluster once a second and prints what changed: NodeClaims launched,
// initialized, drifted and deleted; nodes joining and leaving; how many inflate pods run; and
// the events the controller records. It also keeps the figures of the summary.
type timeline struct {
	kube  client.Client
	out   io.Writer
	start time.Time

	mu         sync.Mutex
	claims     map[string]string // name -> last printed state
	nodes      map[string]string
	seenEvents map[string]bool
	pods       string
	launched   map[string]string // NodeClaim name -> instance type, every one ever launched
}

func newTimeline(kube client.Client, out io.Writer) *timeline {
	return &timeline{kube: kube, out: out, start: time.Now(), claims: map[string]string{}, nodes: map[string]string{},
		seenEvents: map[string]bool{}, launched: map[string]string{}}
}

func (t *timeline) printf(format string, args ...any) {
	fmt.Fprintf(t.out, "[%6.1fs] %s\n", time.Since(t.start).Seconds(), fmt.Sprintf(format, args...))
}

// section prints a scenario heading.
func (t *timeline) section(title string) {
	fmt.Fprintf(t.out, "\n=== %s\n", title)
}

func (t *timeline) run(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		t.poll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (t *timeline) poll(ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pollClaims(ctx)
	t.pollNodes(ctx)
	t.pollPods(ctx)
	t.pollEvents(ctx)
}

func (t *timeline) pollClaims(ctx context.Context) {
	list := &karpv1.NodeClaimList{}
	if err := t.kube.List(ctx, list); err != nil {
		return
	}
	states := map[string]string{}
	for i := range list.Items {
		c := &list.Items[i]
		states[c.Name] = claimState(c)
		if it := c.Labels[karpv1.LabelInstanceType]; it != "" {
			t.launched[c.Name] = it
		}
	}
	t.changes("nodeclaim", t.claims, states)
}

// changes prints, for objects of a kind, each state that differs from the one last printed
// (in seen) and each object gone since, and remembers the states in seen.
func (t *timeline) changes(kind string, seen, states map[string]string) {
	for _, name := range slices.Sorted(maps.Keys(states)) {
		if seen[name] != states[name] {
			seen[name] = states[name]
			t.printf("%-9s %-22s %s", kind, name, states[name])
		}
	}
	for name := range seen {
		if _, ok := states[name]; !ok {
			delete(seen, name)
			t.printf("%-9s %-22s gone", kind, name)
		}
	}
}

func claimState(c *karpv1.NodeClaim) string {
	where := ""
	if it := c.Labels[karpv1.LabelInstanceType]; it != "" {
		where = fmt.Sprintf(" (%s in %s)", it, c.Labels[corev1.LabelTopologyZone])
	}
	switch {
	case !c.DeletionTimestamp.IsZero():
		return "terminating" + where
	case meta.IsStatusConditionTrue(c.Status.Conditions, karpv1.ConditionTypeDrifted):
		return "drifted" + where
	case meta.IsStatusConditionTrue(c.Status.Conditions, karpv1.ConditionTypeInitialized):
		return "initialized" + where
	case meta.IsStatusConditionTrue(c.Status.Conditions, karpv1.ConditionTypeRegistered):
		return "registered" + where
	case meta.IsStatusConditionTrue(c.Status.Conditions, karpv1.ConditionTypeLaunched):
		return "launched" + where
	default:
		return "created"
	}
}

func (t *timeline) pollNodes(ctx context.Context) {
	list := &corev1.NodeList{}
	if err := t.kube.List(ctx, list, client.HasLabels{karpv1.LabelNodePool}); err != nil {
		return
	}
	states := map[string]string{}
	for i := range list.Items {
		n := &list.Items[i]
		state := "NotReady"
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				state = "Ready"
			}
		}
		for _, taint := range n.Spec.Taints {
			if taint.Key == karpv1.DisruptedNoScheduleTaint.Key {
				state += ", tainted karpenter.sh/disrupted"
			}
		}
		states[n.Name] = fmt.Sprintf("%s %s %s %s", state, n.Labels[karpv1.LabelInstanceType], n.Labels[corev1.LabelTopologyZone], n.Status.NodeInfo.KubeletVersion)
	}
	t.changes("node", t.nodes, states)
}

func (t *timeline) pollPods(ctx context.Context) {
	list := &corev1.PodList{}
	if err := t.kube.List(ctx, list, client.InNamespace(demoNamespace), client.MatchingLabels{"app": "inflate"}); err != nil {
		return
	}
	running, pending := 0, 0
	nodes := map[string]bool{}
	for _, p := range list.Items {
		switch {
		case p.Status.Phase == corev1.PodRunning:
			running++
			nodes[p.Spec.NodeName] = true
		case p.DeletionTimestamp.IsZero():
			pending++
		}
	}
	state := fmt.Sprintf("inflate pods: %d running on %d nodes, %d pending", running, len(nodes), pending)
	if state != t.pods {
		t.pods = state
		t.printf("%s", state)
	}
}

func (t *timeline) pollEvents(ctx context.Context) {
	list := &eventsv1.EventList{}
	if err := t.kube.List(ctx, list); err != nil {
		return
	}
	sort.Slice(list.Items, func(i, j int) bool { return eventTime(&list.Items[i]).Before(eventTime(&list.Items[j])) })
	for i := range list.Items {
		e := &list.Items[i]
		if t.seenEvents[string(e.UID)] || eventTime(e).Before(t.start) || !interesting(e) {
			continue
		}
		t.seenEvents[string(e.UID)] = true
		t.printf("event     %s/%s %s: %s", strings.ToLower(e.Regarding.Kind), e.Regarding.Name, e.Reason, e.Note)
	}
}

// interesting keeps the controller's events about its own objects and the pods it could not
// place.
func interesting(e *eventsv1.Event) bool {
	switch e.Regarding.Kind {
	case "NodeClaim", "NodePool", "KCNodeClass":
		return true
	case "Node":
		return e.ReportingController == "karpenter"
	case "Pod":
		return e.Reason == "FailedScheduling" && e.ReportingController == "karpenter"
	}
	return false
}

func eventTime(e *eventsv1.Event) time.Time {
	if !e.EventTime.IsZero() {
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}

// launchedTypes returns the instance type of every NodeClaim launched since the start.
func (t *timeline) launchedTypes() map[string]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.launched)
}
