/*
Copyright 2026 The karpenter-provider-kakaocloud Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package disruption

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

func TestEventLogRepeats(t *testing.T) {
	recorder := events.NewFakeRecorder(10)
	now := testNow
	log := newEventLog(recorder, time.Minute, func() time.Time { return now })
	nc, _ := testNode("a", "default", typeByName(testInstanceTypes(), "m2a.large"), testZones[0])
	other, _ := testNode("b", "default", typeByName(testInstanceTypes(), "m2a.large"), testZones[0])
	publish := func(obj *karpv1.NodeClaim, message string) {
		log.publish(obj, corev1.EventTypeNormal, EventDisruptionBlocked, message)
	}

	publish(nc, "pod default/x is annotated")
	publish(nc, "pod default/x is annotated") // same news: not again
	publish(other, "pod default/x is annotated")
	publish(nc, "PodDisruptionBudget default/db allows no disruption") // new news
	now = now.Add(time.Minute)
	publish(nc, "PodDisruptionBudget default/db allows no disruption") // after the repeat interval
	if got := len(recorder.Events); got != 4 {
		t.Fatalf("%d events published, want 4", got)
	}
}
