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
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Lines as each controller logs them: ours (controller-runtime's zap) and upstream's
// (knative's), trimmed to the fields the table reads.
const controllerLogs = `{"level":"info","ts":"2026-12-06T02:46:21.649Z","msg":"created nodeclaim","NodeClaim":{"name":"a"}}
{"level":"info","ts":"2026-12-06T02:47:13.327Z","logger":"disruption","msg":"disrupting nodeclaim(s) via replace, terminating 1 nodes (2 pods) b","decision":"replace"}
{"level":"info","ts":"2026-12-06T02:47:14.691Z","logger":"disruption","msg":"created nodeclaim","decision":"replace","NodeClaim":{"name":"c"}}
goroutine 1 [running]:
{"level":"INFO","time":"2026-12-06T02:47:20.000Z","logger":"controller","message":"disrupting node(s)","controller":"disruption","decision":"delete"}
{"level":"INFO","time":"2026-12-06T02:47:21.000Z","logger":"controller","message":"created nodeclaim","controller":"disruption","NodeClaim":{"name":"d"}}
{"level":"INFO","time":"2026-12-06T02:47:22.000Z","logger":"controller","message":"created nodeclaim","controller":"provisioner","NodeClaim":{"name":"e"}}
{"level":"info","ts":"2026-12-06T02:50:00.000Z","msg":"created nodeclaim","NodeClaim":{"name":"f"}}
`

func TestActivity(t *testing.T) {
	file := filepath.Join(t.TempDir(), "001-operator.log")
	if err := os.WriteFile(file, []byte(controllerLogs), 0o600); err != nil {
		t.Fatal(err)
	}
	a, logged, err := readActivity(file)
	if err != nil || !logged {
		t.Fatalf("readActivity: %v, logged %v", err, logged)
	}
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, "2026-12-06T"+s+"Z")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		name                         string
		start, end                   string
		moves, replaces, provisioned int
	}{
		{name: "the whole log", start: "02:00:00", end: "03:00:00", moves: 2, replaces: 1, provisioned: 3},
		{name: "the phase after the first NodeClaim, before the last", start: "02:47:00", end: "02:48:00", moves: 2, replaces: 1, provisioned: 1},
		{name: "no line in it", start: "02:48:00", end: "02:49:00"},
	} {
		moves, replaces, provisioned := a.during(at(tc.start), at(tc.end))
		if moves != tc.moves || replaces != tc.replaces || provisioned != tc.provisioned {
			t.Errorf("%s: %d commands, %d replacing, %d provisioned; want %d, %d, %d", tc.name, moves, replaces, provisioned, tc.moves, tc.replaces, tc.provisioned)
		}
	}

	if _, logged, err := readActivity(filepath.Join(t.TempDir(), "none.log")); err != nil || logged {
		t.Errorf("a log not kept: logged %v, err %v", logged, err)
	}
}
