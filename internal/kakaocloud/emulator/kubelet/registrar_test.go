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

package kubelet_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator/kubelet"
)

// fakeCloud is a cloud whose VMs a test sets.
type fakeCloud struct {
	mu       sync.Mutex
	vms      []kakaocloud.Instance
	userData map[string]string
	hooks    []func(kakaocloud.Instance)
}

func (c *fakeCloud) OnInstanceActive(hook func(kakaocloud.Instance)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hooks = append(c.hooks, hook)
}

func (c *fakeCloud) Instances() []kakaocloud.Instance {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]kakaocloud.Instance(nil), c.vms...)
}

func (c *fakeCloud) UserData(id string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, vm := range c.vms {
		if vm.ID == id {
			return c.userData[id], true
		}
	}
	return "", false
}

// boot adds an active VM and calls the hooks, as the emulator does when a build ends.
func (c *fakeCloud) boot(vm kakaocloud.Instance, userData string) {
	c.mu.Lock()
	c.vms = append(c.vms, vm)
	if c.userData == nil {
		c.userData = map[string]string{}
	}
	c.userData[vm.ID] = userData
	hooks := append([]func(kakaocloud.Instance){}, c.hooks...)
	c.mu.Unlock()
	for _, hook := range hooks {
		hook(vm)
	}
}

func (c *fakeCloud) remove(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, vm := range c.vms {
		if vm.ID == id {
			c.vms = append(c.vms[:i], c.vms[i+1:]...)
			return
		}
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func testVM(id, hostname string) kakaocloud.Instance {
	flavor, _ := emulator.DefaultCatalog().FlavorByName("m2a.large")
	vm := vmOf(flavor, 50)
	vm.ID, vm.Hostname = id, hostname
	return vm
}

func TestRegister(t *testing.T) {
	ctx := context.Background()
	script := joinScript(t, map[string]string{karpv1.LabelNodePool: "default"}, []corev1.Taint{karpv1.UnregisteredNoExecuteTaint}, &kcv1.KCNodeClass{}, instanceType(t, &kcv1.KCNodeClass{}, "m2a.large"))
	cloud := &fakeCloud{}
	client := fake.NewClientset()
	var tokens []string
	r := kubelet.New(cloud, kubelet.Options{Client: client, Logger: quietLogger(),
		AuthenticateBootstrapToken: func(_ context.Context, token string) error {
			tokens = append(tokens, token)
			if len(tokens) == 1 {
				return errors.New("401 Unauthorized")
			}
			return nil
		},
	})

	cloud.boot(testVM("vm-1", "host-10-0-0-5"), script)
	if retry, err := r.Register(ctx, "vm-1"); err == nil || !retry {
		t.Fatalf("a token that does not authenticate: retry %v, %v", retry, err)
	}
	if retry, err := r.Register(ctx, "vm-1"); err != nil || retry {
		t.Fatalf("Register: retry %v, %v", retry, err)
	}
	if len(tokens) != 2 || tokens[1] != testToken {
		t.Errorf("tokens tried %v", tokens)
	}
	node, err := client.CoreV1().Nodes().Get(ctx, "host-10-0-0-5", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if node.Spec.ProviderID != kcv1.ProviderIDPrefix+"vm-1" || node.Labels[karpv1.LabelNodePool] != "default" {
		t.Errorf("node %+v", node)
	}
	if retry, err := r.Register(ctx, "vm-1"); err != nil || retry {
		t.Errorf("registering again: retry %v, %v", retry, err)
	}

	// A VM that reuses the address (and so the hostname) of a VM whose node is still there
	// waits for that node to go.
	cloud.boot(testVM("vm-2", "host-10-0-0-5"), script)
	if retry, err := r.Register(ctx, "vm-2"); err == nil || !retry {
		t.Errorf("hostname of another machine's node: retry %v, %v", retry, err)
	}

	cloud.boot(testVM("vm-3", "host-10-0-0-6"), "#cloud-config\n")
	if retry, err := r.Register(ctx, "vm-3"); err != nil || retry {
		t.Errorf("a VM without kubelet: retry %v, %v", retry, err)
	}
	if _, err := client.CoreV1().Nodes().Get(ctx, "host-10-0-0-6", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a VM without kubelet has a node: %v", err)
	}
	if retry, err := r.Register(ctx, "no-such-vm"); err != nil || retry {
		t.Errorf("a VM that is gone: retry %v, %v", retry, err)
	}
}

func TestRemoveNodesOfGoneVMs(t *testing.T) {
	ctx := context.Background()
	cloud := &fakeCloud{}
	cloud.boot(testVM("alive", "host-10-0-0-5"), "")
	node := func(name, providerID string, kwok bool) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
		if kwok {
			n.Annotations = map[string]string{kubelet.KwokNodeAnnotation: kubelet.KwokNodeAnnotationValue}
		}
		return n
	}
	client := fake.NewClientset(
		node("alive", kcv1.ProviderIDPrefix+"alive", true),
		node("gone", kcv1.ProviderIDPrefix+"gone", true),
		node("real-kubelet", kcv1.ProviderIDPrefix+"gone-too", false),
		node("other-cloud", "aws:///us-east-1a/i-0", true),
	)
	r := kubelet.New(cloud, kubelet.Options{Client: client, Logger: quietLogger()})
	if err := r.RemoveNodesOfGoneVMs(ctx); err != nil {
		t.Fatal(err)
	}
	nodes, _ := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	var names []string
	for _, n := range nodes.Items {
		names = append(names, n.Name)
	}
	if len(names) != 3 {
		t.Errorf("nodes left %v, want all but gone", names)
	}
	for _, n := range names {
		if n == "gone" {
			t.Errorf("the node of a VM that is gone is left")
		}
	}
}

func TestStopKubeletsOfDownVMs(t *testing.T) {
	ctx := context.Background()
	cloud := &fakeCloud{}
	for _, vm := range []struct{ id, status string }{
		{"running", kakaocloud.InstanceStatusActive}, {"stopped", kakaocloud.InstanceStatusStopped}, {"failed", kakaocloud.InstanceStatusError},
	} {
		inst := testVM(vm.id, "host-"+vm.id)
		inst.Status = vm.status
		cloud.boot(inst, "")
	}
	var nodes []runtime.Object
	for _, id := range []string{"running", "stopped", "failed"} {
		nodes = append(nodes, &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: id, Annotations: map[string]string{kubelet.KwokNodeAnnotation: kubelet.KwokNodeAnnotationValue}},
			Spec:       corev1.NodeSpec{ProviderID: kcv1.ProviderIDPrefix + id},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
				{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"},
				{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse},
			}},
		})
	}
	client := fake.NewClientset(nodes...)
	r := kubelet.New(cloud, kubelet.Options{Client: client, Logger: quietLogger()})
	// Twice: a pass that finds the kubelet stopped already still keeps the node Unknown, so a
	// status kwok wrote back (it had one scheduled) does not last.
	for pass := range 2 {
		if pass == 1 {
			n, err := client.CoreV1().Nodes().Get(ctx, "failed", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			n.Status.Conditions[0].Status = corev1.ConditionTrue
			if _, err := client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.StopKubeletsOfDownVMs(ctx); err != nil {
			t.Fatal(err)
		}
		for id, running := range map[string]bool{"running": true, "stopped": false, "failed": false} {
			n, err := client.CoreV1().Nodes().Get(ctx, id, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := n.Annotations[kubelet.KwokNodeAnnotation]; ok != running {
				t.Errorf("pass %d: node %s of a VM %s: kwok manages it %v, want %v", pass, id, id, ok, running)
			}
			want := corev1.ConditionUnknown
			if running {
				want = corev1.ConditionTrue
			}
			if got := n.Status.Conditions[0]; got.Status != want || (!running && got.Reason != "NodeStatusUnknown") {
				t.Errorf("pass %d: node %s of a VM %s: Ready %s (%s), want %s", pass, id, id, got.Status, got.Reason, want)
			}
			if got := n.Status.Conditions[1].Status; got != corev1.ConditionFalse {
				t.Errorf("pass %d: node %s: MemoryPressure %s, want it left False", pass, id, got)
			}
		}
	}
}

func TestStartRegistersBootedVMsAndRemovesTheirNodes(t *testing.T) {
	ctx := t.Context()
	cloud := &fakeCloud{}
	client := fake.NewClientset()
	kubelet.New(cloud, kubelet.Options{Client: client, Logger: quietLogger(), ResyncInterval: 10 * time.Millisecond}).Start(ctx)

	script := joinScript(t, nil, []corev1.Taint{karpv1.UnregisteredNoExecuteTaint}, &kcv1.KCNodeClass{}, instanceType(t, &kcv1.KCNodeClass{}, "m2a.large"))
	cloud.boot(testVM("vm-1", "host-10-0-0-5"), script)
	eventually(t, func() bool {
		_, err := client.CoreV1().Nodes().Get(ctx, "host-10-0-0-5", metav1.GetOptions{})
		return err == nil
	}, "the booted VM's node registers")
	cloud.remove("vm-1")
	eventually(t, func() bool {
		_, err := client.CoreV1().Nodes().Get(ctx, "host-10-0-0-5", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, "the node of the deleted VM is removed")
}

func eventually(t *testing.T, condition func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !condition() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestCatalogNodeInfo(t *testing.T) {
	c := emulator.DefaultCatalog()
	var image kakaocloud.NodeImage
	for _, img := range c.NodeImages {
		if img.Name == "ubuntu-24.04-k8s-1.36-x86_64" {
			image = img
		}
	}
	info := kubelet.CatalogNodeInfo(c)(kakaocloud.Instance{Image: kakaocloud.InstanceImage{ID: image.ID}})
	if info.KubeletVersion != "v1.36.4" || info.OSImage != "Ubuntu 24.04" || info.KernelVersion == "" {
		t.Errorf("node info %+v", info)
	}
	if info := kubelet.CatalogNodeInfo(c)(kakaocloud.Instance{Image: kakaocloud.InstanceImage{ID: "plain"}}); info != (kubelet.NodeInfo{}) {
		t.Errorf("node info of a plain image %+v", info)
	}
}
