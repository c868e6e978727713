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

package packaging

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/release"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestInstallHelm installs the chart the way the documents do, with the Helm SDK, on a local
// cluster without the operator: helm install, then the operator (run as the chart's pods, see
// the stand-in kubelet) reconciles a KCNodeClass and a NodePool to Ready with the chart's
// ServiceAccount, RBAC and webhook certificate; helm upgrade --reuse-values with a new image
// rolls the pods and the webhooks keep answering; helm rollback; and the documents'
// uninstall: NodePools and KCNodeClasses, helm uninstall, the CRDs.
func TestInstallHelm(t *testing.T) {
	c := newInstallCluster(t)
	ctx := t.Context()
	c.systemNode(t)
	c.userSecrets(t)

	helm := new(action.Configuration)
	if err := helm.Init(&restClientGetter{config: c.config, namespace: installNamespace}, installNamespace, "secret", t.Logf); err != nil {
		t.Fatalf("initialising Helm: %v", err)
	}
	install := action.NewInstall(helm)
	install.ReleaseName = releaseName
	install.Namespace = installNamespace
	install.Timeout = 2 * time.Minute
	values := parseSettings(t, []string{"controller.clusterName=" + c.env["CLUSTER_NAME"]})
	values["controller"].(map[string]any)["extraEnv"] = []any{map[string]any{"name": "KAKAOCLOUD_ENDPOINTS", "value": c.emulatorEndpoints()}}
	if _, err := install.RunWithContext(ctx, loadChart(t), values); err != nil {
		t.Fatalf("helm install: %v", err)
	}
	// A failed spec leaves no release behind: its webhook configurations would name a Service
	// nothing serves any more, and refuse the next install's objects.
	t.Cleanup(func() {
		if t.Failed() {
			if _, err := newUninstall(helm).Run(releaseName); err != nil {
				t.Logf("helm uninstall after the failure: %v", err)
			}
		}
	})

	deployment := &appsv1.Deployment{}
	if err := c.kube.Get(ctx, client.ObjectKey{Namespace: installNamespace, Name: releaseName}, deployment); err != nil {
		t.Fatalf("the chart's Deployment: %v", err)
	}
	selector, err := metav1.LabelSelectorAsSelector(deployment.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	c.expectOperatorSecretRights(t, deployment.Spec.Template.Spec.ServiceAccountName, "karpenter-kakaocloud-credentials", "karpenter-kakaocloud-signing-keys")
	kubelet := c.runPods(t, selector)
	removeNodeClassAndPool := c.nodeClassAndPool(t, "helm", "1.36")
	t.Logf("pods run after install: %s", strings.Join(kubelet.podsStarted(), ", "))
	c.askWhatIf(t, releaseName+"-plugin-reader", "helm")

	// helm upgrade --reuse-values --set controller.image.tag=0.1.1: the pods roll, and the
	// new ones serve the webhooks with the same certificate.
	before := len(kubelet.podsStarted())
	upgrade := action.NewUpgrade(helm)
	upgrade.Namespace = installNamespace
	upgrade.ReuseValues = true
	upgrade.Timeout = 2 * time.Minute
	if _, err := upgrade.RunWithContext(ctx, releaseName, loadChart(t), parseSettings(t, []string{"controller.image.tag=0.1.1"})); err != nil {
		t.Fatalf("helm upgrade: %v", err)
	}
	rolled := func(image string) {
		t.Helper()
		eventually(t, 2*time.Minute, "the Deployment rolled to "+image, func() (bool, string) {
			if err := c.kube.Get(ctx, client.ObjectKeyFromObject(deployment), deployment); err != nil {
				return false, err.Error()
			}
			status := deployment.Status
			done := deployment.Spec.Template.Spec.Containers[0].Image == image && status.ObservedGeneration == deployment.Generation &&
				status.UpdatedReplicas == *deployment.Spec.Replicas && status.AvailableReplicas == *deployment.Spec.Replicas &&
				status.Replicas == *deployment.Spec.Replicas
			return done, fmt.Sprintf("%s, %+v", deployment.Spec.Template.Spec.Containers[0].Image, status)
		})
	}
	rolled("karpenter-provider-kakaocloud:0.1.1")
	if env := containerEnv(deployment); env["CLUSTER_NAME"] != c.env["CLUSTER_NAME"] || env["KAKAOCLOUD_ENDPOINTS"] == "" {
		t.Errorf("after upgrade --reuse-values the environment is %v: the install's values were not kept", env)
	}
	eventually(t, time.Minute, "the stand-in kubelet runs the upgraded pods", func() (bool, string) {
		started := kubelet.podsStarted()
		return len(started) >= before+int(*deployment.Spec.Replicas), strings.Join(started, ", ")
	})
	c.nodeClassAndPool(t, "helm-after-upgrade", "1.36")()

	// helm rollback karpenter-provider-kakaocloud 1
	rollback := action.NewRollback(helm)
	rollback.Version = 1
	rollback.Timeout = 2 * time.Minute
	if err := rollback.Run(releaseName); err != nil {
		t.Fatalf("helm rollback: %v", err)
	}
	rolled("karpenter-provider-kakaocloud:0.1.0")
	t.Logf("pods run by the stand-in kubelet: %s", strings.Join(kubelet.podsStarted(), ", "))

	// Uninstall, in the documents' order.
	removeNodeClassAndPool()
	if _, err := newUninstall(helm).Run(releaseName); err != nil {
		t.Fatalf("helm uninstall: %v", err)
	}
	c.deleteCRDs(t)
	if releases, err := action.NewList(helm).Run(); err != nil || slices.ContainsFunc(releases, func(r *release.Release) bool { return r.Name == releaseName }) {
		t.Errorf("the release is still listed after uninstall (%v)", err)
	}
}

// newUninstall is helm uninstall --wait --timeout 2m.
func newUninstall(helm *action.Configuration) *action.Uninstall {
	uninstall := action.NewUninstall(helm)
	uninstall.Timeout = 2 * time.Minute
	uninstall.Wait = true
	return uninstall
}

func containerEnv(deployment *appsv1.Deployment) map[string]string {
	env := map[string]string{}
	for _, variable := range deployment.Spec.Template.Spec.Containers[0].Env {
		env[variable.Name] = variable.Value
	}
	return env
}
