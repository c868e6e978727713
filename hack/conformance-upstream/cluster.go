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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// The label upstream's specs put on everything they create, and the finalizer with which some
// hold nodes back from termination.
const (
	discoveryLabel   = "testing/cluster"
	testingFinalizer = "testing/finalizer"
)

// What upstream's environment requires to be absent when a spec starts (its
// ExpectCleanCluster): NodePools, node classes (the kind of -default-nodeclass) and nodes of
// earlier specs, and pods in the default namespace; NodeClaims, which would hold capacity, are
// added.
var leftoverKinds = []string{"nodepools.karpenter.sh", "nodeclaims.karpenter.sh", "nodes"}

// What upstream's cleanup deletes after each spec (everything of these kinds it labelled),
// to delete again when an interrupted spec did not get that far.
var cleanableKinds = []string{
	"validatingadmissionpolicybindings", "validatingadmissionpolicies", "daemonsets", "deployments",
	"capacitybuffers.autoscaling.x-k8s.io", "limitranges", "persistentvolumeclaims", "persistentvolumes", "pods",
	"podtemplates", "services", "poddisruptionbudgets", "priorityclasses", "storageclasses",
	"nodepools.karpenter.sh", "nodeoverlays.karpenter.sh", "nodeclaims.karpenter.sh", "nodes",
}

const cleanTimeout = 10 * time.Minute

// controlPlaneLabel marks the nodes the cluster keeps for itself, as upstream's clusters keep
// nodes for the controller: no spec's.
const controlPlaneLabel = "node-role.kubernetes.io/control-plane"

type cluster struct {
	kubectl string
	// nodeClass is the node class kind as kubectl names it, <kind>.<group>.
	nodeClass string
}

// ensureClean leaves the cluster as a spec expects to find it: what an earlier spec left is
// released from the testing finalizer and deleted, and its nodes are waited for.
func (c cluster) ensureClean(ctx context.Context, next *spec) error {
	left, err := c.leftovers(ctx)
	if err != nil || len(left) == 0 {
		return err
	}
	before := "the end"
	if next != nil {
		before = next.name()
	}
	fmt.Printf("        cleaning up before %s: %s\n", before, strings.Join(left, " "))
	if err := c.releaseFinalizers(ctx); err != nil {
		return err
	}
	if _, err := c.run(ctx, "delete", strings.Join(c.withNodeClass(cleanableKinds), ","), "--all-namespaces", "-l", discoveryLabel,
		"--ignore-not-found", "--wait=false"); err != nil {
		return err
	}
	if _, err := c.run(ctx, "delete", "pods", "-n", "default", "--all", "--ignore-not-found", "--wait=false"); err != nil {
		return err
	}
	deadline := time.Now().Add(cleanTimeout)
	for time.Now().Before(deadline) {
		if left, err = c.leftovers(ctx); err == nil && len(left) == 0 {
			return nil
		}
		time.Sleep(5 * time.Second)
	}
	return fmt.Errorf("still there after %s: %s", cleanTimeout, strings.Join(left, " "))
}

func (c cluster) leftovers(ctx context.Context) ([]string, error) {
	// The cluster's own nodes (the controller's stand-in pod's) are not a spec's.
	out, err := c.run(ctx, "get", strings.Join(c.withNodeClass(leftoverKinds), ","), "-o", "name", "-l", "!"+controlPlaneLabel)
	if err != nil {
		return nil, err
	}
	pods, err := c.run(ctx, "get", "pods", "-n", "default", "-o", "name")
	if err != nil {
		return nil, err
	}
	return strings.Fields(out + " " + pods), nil
}

// releaseFinalizers takes the testing finalizer off the nodes and NodeClaims that carry it.
func (c cluster) releaseFinalizers(ctx context.Context) error {
	out, err := c.run(ctx, "get", "nodes,nodeclaims.karpenter.sh", "-o", "json")
	if err != nil {
		return err
	}
	var list struct {
		Items []struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name       string   `json:"name"`
				Finalizers []string `json:"finalizers"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		return err
	}
	for _, item := range list.Items {
		for i, f := range item.Metadata.Finalizers {
			if f != testingFinalizer {
				continue
			}
			// The test operation makes the patch fail rather than remove another finalizer
			// when the list changed meanwhile.
			patch := fmt.Sprintf(`[{"op":"test","path":"/metadata/finalizers/%d","value":%q},{"op":"remove","path":"/metadata/finalizers/%d"}]`, i, f, i)
			kind := strings.ToLower(item.Kind)
			if kind == "nodeclaim" {
				kind = "nodeclaims.karpenter.sh"
			}
			if _, err := c.run(ctx, "patch", kind, item.Metadata.Name, "--type=json", "-p", patch); err != nil {
				return err
			}
			break
		}
	}
	return nil
}

// withNodeClass adds the node class's kind to kinds.
func (c cluster) withNodeClass(kinds []string) []string {
	if c.nodeClass == "" {
		return kinds
	}
	return append(slices.Clone(kinds), c.nodeClass)
}

// nodeClassKind is the kind of the node class in file, as kubectl names it: <kind>.<group>.
func nodeClassKind(file string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	var object struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(data, &object); err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	gv, err := schema.ParseGroupVersion(object.APIVersion)
	if err != nil || object.Kind == "" || gv.Group == "" {
		return "", fmt.Errorf("%s: not a node class: apiVersion %q, kind %q", file, object.APIVersion, object.Kind)
	}
	return strings.ToLower(object.Kind) + "." + gv.Group, nil
}

func (c cluster) run(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, c.kubectl, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// vmsLeft returns the VMs the emulator still has, once those being deleted are gone (it waits
// up to two minutes for them).
func vmsLeft(ctx context.Context, emulator string) ([]string, error) {
	var names []string
	deadline := time.Now().Add(2 * time.Minute)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(emulator, "/")+"/_emulator/instances", nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		var body struct {
			Instances []struct {
				Name   string `json:"name"`
				Status string `json:"status"`
			} `json:"instances"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		_ = resp.Body.Close()
		if err != nil {
			return nil, err
		}
		names = names[:0]
		for _, vm := range body.Instances {
			names = append(names, fmt.Sprintf("%s(%s)", vm.Name, vm.Status))
		}
		if len(names) == 0 || time.Now().After(deadline) {
			return names, nil
		}
		time.Sleep(5 * time.Second)
	}
}
