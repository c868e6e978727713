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

package plugin

import (
	"context"
	"fmt"
	"slices"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// reportingController is the operator's name on the events it writes.
const reportingController = "karpenter"

// eventsOf are the operator's events about the objects of uids, newest first, of the reasons
// given (every reason when none). Events of cluster-scoped objects are in namespace default.
func eventsOf(ctx context.Context, reader client.Reader, namespace string, uids []types.UID, reasons ...string) ([]eventsv1.Event, error) {
	list := &eventsv1.EventList{}
	if err := reader.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing the events of namespace %s: %w", namespace, err)
	}
	var out []eventsv1.Event
	for _, e := range list.Items {
		if e.ReportingController == reportingController && slices.Contains(uids, e.Regarding.UID) &&
			(len(reasons) == 0 || slices.Contains(reasons, e.Reason)) {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b eventsv1.Event) int { return lastSeen(b).Compare(lastSeen(a)) })
	return out, nil
}

// lastSeen is when an event was last reported: its series' last observation, else its time.
func lastSeen(e eventsv1.Event) time.Time {
	switch {
	case e.Series != nil:
		return e.Series.LastObservedTime.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	case !e.DeprecatedLastTimestamp.IsZero():
		return e.DeprecatedLastTimestamp.Time
	}
	return e.CreationTimestamp.Time
}
