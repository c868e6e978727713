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

package v1

import (
	"strings"
	"testing"
	"time"
)

func TestNodeCount(t *testing.T) {
	for _, tc := range []struct {
		value string
		total int
		want  int
		err   bool
	}{
		{value: "2", total: 10, want: 2},
		{value: "12", total: 10, want: 12}, // a count is not capped by the nodes there are
		{value: "0", total: 10, want: 0},
		{value: "20%", total: 7, want: 2}, // 1.4 rounded up
		{value: "20%", total: 0, want: 0},
		{value: "100%", total: 7, want: 7},
		{value: "0%", total: 7, want: 0},
		{value: "7%", total: 100, want: 7},
		{value: "10%", total: 11, want: 2},
		{value: "33%", total: 10, want: 4},
		{value: "abc", total: 10, err: true},
		{value: "", total: 10, err: true},
		{value: "-1", total: 10, err: true},
		{value: "101%", total: 10, err: true},
		{value: "1.5", total: 10, err: true},
		{value: "10 %", total: 10, err: true},
		{value: "99999999999", total: 10, err: true}, // beyond an int32 count
	} {
		got, err := NodeCount(tc.value, tc.total)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("NodeCount(%q, %d) = %d, %v; want %d, error %v", tc.value, tc.total, got, err, tc.want, tc.err)
		}
	}
}

func TestParseBudgetSchedule(t *testing.T) {
	// Wednesday 2026-03-04 10:30 UTC.
	now := time.Date(2026, 3, 4, 10, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		schedule string
		next     time.Time
		err      string
	}{
		{schedule: "0 9 * * *", next: time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC)},
		{schedule: "@hourly", next: time.Date(2026, 3, 4, 11, 0, 0, 0, time.UTC)},
		{schedule: "0 12 * * mon-fri", next: time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)},
		{schedule: "TZ=Asia/Seoul 0 9 * * *", err: "time zones are not supported"},
		{schedule: "CRON_TZ=UTC 0 9 * * *", err: "time zones are not supported"},
		{schedule: "61 * * * *", err: "not a cron schedule: end of range (61) above maximum (59)"},
		{schedule: "0 0 9 * * *", err: "not a cron schedule"}, // six fields: seconds are not accepted
	} {
		schedule, err := ParseBudgetSchedule(tc.schedule)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseBudgetSchedule(%q) error = %v, want one saying %q", tc.schedule, err, tc.err)
			}
		case err != nil:
			t.Errorf("ParseBudgetSchedule(%q): %v", tc.schedule, err)
		case !schedule.Next(now).Equal(tc.next):
			t.Errorf("ParseBudgetSchedule(%q) next after %s = %s, want %s", tc.schedule, now, schedule.Next(now), tc.next)
		}
	}
}
