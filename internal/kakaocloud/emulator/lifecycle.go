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

package emulator

import (
	"slices"
	"time"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// Power states an instance shows (the BCS power_state enum).
const (
	powerStateNoState  = "NOSTATE"
	powerStateRunning  = "RUNNING"
	powerStateShutdown = "SHUTDOWN"
)

// NoValidHostMessage is the action-log message of an instance whose build found no capacity,
// Nova's wording, which KakaoCloud passes on.
const NoValidHostMessage = "No valid host was found. There are not enough hosts available."

// defaultBuildFailureMessage is the action-log message of FailNextInstances without one.
const defaultBuildFailureMessage = "Build of instance aborted: emulated failure"

// instance is an emulated VM: its wire view plus what moves it through its lifecycle.
type instance struct {
	kakaocloud.Instance
	// failureMessage, decided at create, makes the build end in error with this message.
	failureMessage string
	// deletedAt is when the delete was accepted.
	deletedAt  time.Time
	actionLogs []kakaocloud.ActionLog
	// userData is the decoded user data the instance was created with, which the metadata
	// service hands to the VM; the API never shows it.
	userData string
}

func (in *instance) setState(status, vmState, taskState, powerState string, at time.Time) {
	in.Status = status
	in.VMState = vmState
	in.TaskState = taskState
	in.PowerState = powerState
	in.UpdatedAt = at
}

func (in *instance) log(action string, at time.Time) {
	in.actionLogs = append(in.actionLogs, kakaocloud.ActionLog{Action: action, RequestID: newRequestID(), StartTime: at})
}

// snapshot copies the wire view, so callers never share the emulator's slices.
func (in *instance) snapshot() kakaocloud.Instance {
	s := in.Instance
	s.Addresses = slices.Clone(s.Addresses)
	s.AttachedVolumes = slices.Clone(s.AttachedVolumes)
	s.SecurityGroups = slices.Clone(s.SecurityGroups)
	return s
}

// applyDueTransitionsLocked moves every instance along as far as the clock says: building
// ones whose BuildDelay passed become active (or error), deleting ones whose DeleteDelay
// passed are gone. Transitions are stamped with when they were due, not when they were
// noticed. It returns snapshots of the instances that became active.
func (e *Emulator) applyDueTransitionsLocked() []kakaocloud.Instance {
	now := e.now()
	var activated []kakaocloud.Instance
	remaining := e.instances[:0]
	for _, in := range e.instances {
		switch in.Status {
		case kakaocloud.InstanceStatusBuilding:
			builtAt := in.CreatedAt.Add(e.buildDelay)
			if now.Before(builtAt) {
				break
			}
			if in.failureMessage != "" {
				in.setState(kakaocloud.InstanceStatusError, "error", "", powerStateNoState, builtAt)
				// Nova records the reason on the create action, where the action log shows it.
				in.actionLogs[0].Message = in.failureMessage
				break
			}
			in.setState(kakaocloud.InstanceStatusActive, "active", "", powerStateRunning, builtAt)
			activated = append(activated, in.snapshot())
		case kakaocloud.InstanceStatusDeleting:
			if !now.Before(in.deletedAt.Add(e.deleteDelay)) {
				continue // gone
			}
		}
		remaining = append(remaining, in)
	}
	clear(e.instances[len(remaining):]) // drop the references to the instances that are gone
	e.instances = remaining
	return activated
}

// buildFailureLocked decides, when an instance is created, whether its build will fail and
// with which message: FailNextInstances first, then exhausted capacity.
func (e *Emulator) buildFailureLocked(flavorName, zone string) string {
	if e.failNextCount > 0 {
		e.failNextCount--
		e.injected[InjectedBootFailure]++
		return e.failNextMessage
	}
	key := capacityKey{flavor: flavorName, zone: zone}
	remaining, limited := e.capacity[key]
	switch {
	case !limited:
		return ""
	case remaining == 0:
		e.injected[InjectedNoValidHost]++
		return NoValidHostMessage
	default:
		e.capacity[key] = remaining - 1
		return ""
	}
}
