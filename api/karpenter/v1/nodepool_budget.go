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
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// budgetScheduleParser accepts the five-field cron syntax and the @yearly..@hourly macros,
// like Kubernetes CronJobs.
var budgetScheduleParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseBudgetSchedule reads a budget's schedule. Admission and the disruption loop both read
// it here, so that a schedule admission accepts is one the loop can evaluate, and one that
// slipped past admission is refused the same way rather than read in a time zone.
func ParseBudgetSchedule(schedule string) (cron.Schedule, error) {
	if strings.HasPrefix(schedule, "TZ=") || strings.HasPrefix(schedule, "CRON_TZ=") {
		return nil, errors.New("time zones are not supported: budget schedules are in UTC")
	}
	parsed, err := budgetScheduleParser.Parse(schedule)
	if err != nil {
		return nil, fmt.Errorf("not a cron schedule: %w", err)
	}
	return parsed, nil
}

// nodeCountPattern is the schema's pattern for Budget.Nodes and Repair.MaxUnhealthy.
var nodeCountPattern = regexp.MustCompile(`^((100|[0-9]{1,2})%|[0-9]+)$`)

// NodeCount is how many of total nodes a Budget.Nodes or Repair.MaxUnhealthy value comes to:
// a count ("2"), or a percentage of total rounded up ("20%" of 7 is 2). A value outside the
// schema's pattern, which only an object written around validation can hold, is an error.
func NodeCount(value string, total int) (int, error) {
	if !nodeCountPattern.MatchString(value) {
		return 0, fmt.Errorf("%q is neither a count nor a percentage from 0%% to 100%%", value)
	}
	scaled := intstr.Parse(value)
	return intstr.GetScaledValueFromIntOrPercent(&scaled, total, true)
}
