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

// The install specs (TestInstall*) install the operator the way users do, with the real tool,
// on a local cluster that has no operator of its own (hack/local-up with
// LOCAL_CLUSTER_OPERATOR=none; hack/test-e2e brings one up and sets E2E_INSTALL_CLUSTER_DIR).
//
// The local cluster's pods are kwok's: the scheduler places them and kwok reports them
// running, but no container runs. So that the installed operator really runs, with what the
// installer gave its pod, a stand-in kubelet (below) starts the manager binary on this
// machine for every pod of the installed Deployment, as the kubelet would start the
// container: with the pod's environment, the token of the pod's ServiceAccount in the usual
// files (in a mount namespace of its own), the Secrets its volumes mount, and its ports on
// loopback, routed from their Services by the local cluster's Service network stand-in. What
// it changes is only where things are on this machine: listen addresses and mounted paths.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
)

// installNamespace is where the documents install the operator.
const installNamespace = "karpenter-kakaocloud"

// installCluster is a local cluster without the operator.
type installCluster struct {
	dir     string
	env     map[string]string
	config  *rest.Config
	kube    client.Client
	clients kubernetes.Interface
}

func newInstallCluster(t *testing.T) *installCluster {
	t.Helper()
	dir := os.Getenv("E2E_INSTALL_CLUSTER_DIR")
	if dir == "" {
		t.Skip("no local cluster without the operator: hack/test-e2e runs this with E2E_INSTALL_CLUSTER_DIR")
	}
	env := clusterEnv(t, dir)
	// A failed spec shows what the Service network refused or could not dial: a webhook the
	// API server cannot call fails with the proxy's 502 alone.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the Service network's last refusals and failed dials:\n%s", lastLines(filepath.Join(dir, "logs", "servicenet.log"), 20, func(line string) bool {
				return line != "" && !strings.Contains(line, `"msg":"connected"`)
			}))
		}
	})
	config, err := clientcmd.BuildConfigFromFlags("", env["KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme,
		operatorsv1alpha1.AddToScheme, operatorsv1.AddToScheme, operatorsv2.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	kube, err := client.New(config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return &installCluster{dir: dir, env: env, config: config, kube: kube, clients: kubernetes.NewForConfigOrDie(config)}
}

// systemNode is a node for the operator's own pods: a kwok node without Karpenter's labels.
func (c *installCluster) systemNode(t *testing.T) {
	t.Helper()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name:        "system-0",
		Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
		Labels:      map[string]string{corev1.LabelHostname: "system-0", corev1.LabelOSStable: "linux", corev1.LabelArchStable: "amd64"},
	}}
	if err := c.kube.Create(t.Context(), node); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating the system node: %v", err)
	}
}

// userSecrets are what the documents have users create before installing: the namespace,
// the IAM access key Secret and the signing keyring Secret (here for the emulator).
func (c *installCluster) userSecrets(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	for _, object := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: installNamespace}},
		&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "karpenter-kakaocloud-credentials", Namespace: installNamespace},
			StringData: map[string]string{"access-key-id": "emulator-access-key", "secret-access-key": "emulator-secret"},
		},
		&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "karpenter-kakaocloud-signing-keys", Namespace: installNamespace},
			StringData: map[string]string{"activeKeyID": "k1", "keys.k1": "c2lnbmluZy1rZXktb2YtdGhlLWluc3RhbGwtc3BlY3MtMDEyMzQ1Njc4OWFiY2RlZg=="},
		},
	} {
		if err := c.kube.Create(ctx, object); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating %s: %v", object.GetName(), err)
		}
	}
}

// emulatorEndpoints is KAKAOCLOUD_ENDPOINTS for the local cluster's KakaoCloud emulator.
func (c *installCluster) emulatorEndpoints() string {
	var endpoints []string
	for _, service := range []string{"iam", "bcs", "image", "vpc", "network", "kubernetes-engine"} {
		endpoints = append(endpoints, service+"="+c.env["KAKAOCLOUD_EMULATOR_URL"]+"/"+service)
	}
	return strings.Join(endpoints, ",")
}

// expectOperatorSecretRights asks the API server, as `kubectl auth can-i --as` does, what the
// installed operator's ServiceAccount may do with Secrets: in kube-system create and
// deletecollection (its bootstrap tokens, which an admission policy holds to that type) and
// nothing else; in its own namespace get of its own Secrets by name and nothing else; in any
// other namespace, and across all of them, nothing at all.
func (c *installCluster) expectOperatorSecretRights(t *testing.T, serviceAccount string, ownSecrets ...string) {
	t.Helper()
	user := "system:serviceaccount:" + installNamespace + ":" + serviceAccount
	verbs := []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
	type question struct{ namespace, verb, name string }
	allowed := map[question]bool{
		{"kube-system", "create", ""}:           true,
		{"kube-system", "deletecollection", ""}: true,
	}
	var questions []question
	for _, namespace := range []string{"", "default", "kube-system", installNamespace} {
		for _, verb := range verbs {
			questions = append(questions, question{namespace, verb, ""})
		}
	}
	for _, name := range ownSecrets {
		allowed[question{installNamespace, "get", name}] = true
		for _, verb := range verbs {
			questions = append(questions, question{installNamespace, verb, name})
		}
	}
	for _, q := range questions {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user,
			Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + installNamespace, "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: q.namespace, Verb: q.verb, Resource: "secrets", Name: q.name}}}
		if err := c.kube.Create(t.Context(), review); err != nil {
			t.Fatalf("asking whether %s may %s Secrets: %v", user, q.verb, err)
		}
		if review.Status.Allowed != allowed[q] {
			what, where := "secrets", "--all-namespaces"
			if q.name != "" {
				what += "/" + q.name
			}
			if q.namespace != "" {
				where = "-n " + q.namespace
			}
			t.Errorf("kubectl auth can-i %s %s %s --as %s: %t, want %t (%s)", q.verb, what, where, user, review.Status.Allowed, allowed[q], review.Status.Reason)
		}
	}
}

// eventually polls check until it returns true, failing the test after timeout with what
// check last said.
func eventually(t *testing.T, timeout time.Duration, what string, check func() (bool, string)) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		done, state := check()
		last = state
		return done, nil
	})
	if err != nil {
		t.Fatalf("%s: not after %s; last seen: %s", what, timeout, last)
	}
}

// nodeClassAndPool creates a KCNodeClass and a NodePool through the installed operator's
// webhooks and waits until the operator reports both Ready; it also has the webhooks refuse
// a Kubernetes version the emulator does not offer, which only the operator can answer.
// The returned function deletes them, NodePool first, and waits until they are gone (the
// operator's finalizers ran); it also runs when the test ends.
func (c *installCluster) nodeClassAndPool(t *testing.T, name, kubernetesVersion string) func() {
	t.Helper()
	ctx := t.Context()
	nodeClass := func(version string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "karpenter.kakaocloud.com/v1", "kind": "KCNodeClass",
			"metadata": map[string]any{"name": name},
			"spec": map[string]any{
				"bootstrap":                  map[string]any{"kubernetesVersion": version},
				"subnetSelectorTerms":        []any{map[string]any{"name": "karpenter-subnet-a"}},
				"securityGroupSelectorTerms": []any{map[string]any{"name": "karpenter-workers"}},
			},
		}}
	}
	// The webhook is reached through the Service the installer made, with its CA.
	eventually(t, time.Minute, "the operator's KCNodeClass webhook answers", func() (bool, string) {
		err := c.kube.Create(ctx, nodeClass("1.20"), client.DryRunAll)
		if err != nil && strings.Contains(err.Error(), "admission webhook") && strings.Contains(err.Error(), "denied the request") {
			return true, err.Error()
		}
		return false, fmt.Sprint(err)
	})
	c.createThroughWebhooks(t, nodeClass(kubernetesVersion))
	nodePool := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"nodeClassRef": map[string]any{"group": "karpenter.kakaocloud.com", "kind": "KCNodeClass", "name": name},
			"requirements": []any{},
		}}},
	}}
	c.createThroughWebhooks(t, nodePool)
	var once sync.Once
	remove := func() {
		once.Do(func() {
			ctx := context.Background()
			for _, object := range []*unstructured.Unstructured{nodePool, nodeClass(kubernetesVersion)} {
				if err := c.kube.Delete(ctx, object); err != nil && !apierrors.IsNotFound(err) {
					t.Errorf("deleting %s %s: %v", object.GetKind(), name, err)
				}
				err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
					err := c.kube.Get(ctx, client.ObjectKeyFromObject(object), object.DeepCopy())
					return apierrors.IsNotFound(err), nil
				})
				if err != nil {
					t.Errorf("%s %s still there a minute after its deletion", object.GetKind(), name)
				}
			}
		})
	}
	t.Cleanup(remove)
	for _, object := range []*unstructured.Unstructured{nodeClass(kubernetesVersion), nodePool} {
		eventually(t, 2*time.Minute, object.GetKind()+" "+name+" Ready", func() (bool, string) {
			read := object.DeepCopy()
			if err := c.kube.Get(ctx, client.ObjectKeyFromObject(object), read); err != nil {
				return false, err.Error()
			}
			ready := readyCondition(read)
			return ready["status"] == "True", fmt.Sprint(ready)
		})
	}
	return remove
}

// askWhatIf runs kubectl karpenter whatif pod as a ServiceAccount bound to the plugin's reader
// ClusterRole (readerRole) alone, with a kubeconfig of its own token, as a user asks: the
// plugin creates a WhatIf of the operator's aggregated API, which the API server authorizes by
// that role and passes on to the operator, naming the user, through the Service and with the
// CA the installer gave the APIService. The operator must answer that a pod only the NodePool
// pool takes launches a NodeClaim of it.
func (c *installCluster) askWhatIf(t *testing.T, readerRole, pool string) {
	t.Helper()
	ctx := t.Context()
	c.expectAPIServiceAvailable(t)
	name := "whatif-asker"
	objects := []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: installNamespace}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: installNamespace}},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: readerRole}},
	}
	for _, object := range objects {
		if err := c.kube.Create(ctx, object); err != nil {
			t.Fatalf("creating %T %s: %v", object, object.GetName(), err)
		}
		t.Cleanup(func() { _ = c.kube.Delete(context.Background(), object) })
	}
	token, err := exec.CommandContext(ctx, c.env["KUBECTL"], "--kubeconfig", c.env["KUBECONFIG"], "-n", installNamespace, "create", "token", name, "--duration", "10m").Output()
	if err != nil {
		t.Fatalf("kubectl create token %s: %v", name, err)
	}
	kubeconfig := c.kubeconfigWithToken(t, name, strings.TrimSpace(string(token)))
	file := filepath.Join(t.TempDir(), "pod.yaml")
	pod := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: question\nspec:\n  nodeSelector:\n    karpenter.sh/nodepool: " + pool +
		"\n  containers:\n  - name: app\n    image: app\n    resources:\n      requests:\n        cpu: \"1\"\n"
	if err := os.WriteFile(file, []byte(pod), 0o600); err != nil {
		t.Fatal(err)
	}
	// RBAC sees the new binding a moment later, and the operator answers one question at a
	// time: the question is asked again until it is answered.
	eventually(t, time.Minute, "kubectl karpenter whatif pod answers through the API server", func() (bool, string) {
		cmd := exec.CommandContext(ctx, c.env["KUBECTL"], "karpenter", "--kubeconfig", kubeconfig, "whatif", "pod", "-f", file, "-o", "json")
		cmd.Env = append(os.Environ(), "PATH="+c.env["KUBECTL_PLUGINS"]+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			return false, fmt.Sprintf("%v: %s", err, out)
		}
		var answer struct {
			Launch *struct {
				NodePool string `json:"nodePool"`
			} `json:"launch"`
		}
		if err := json.Unmarshal(out, &answer); err != nil || answer.Launch == nil || answer.Launch.NodePool != pool {
			t.Errorf("kubectl karpenter whatif pod answered %s (%v), want a launch from NodePool %s", out, err, pool)
		}
		return true, ""
	})
}

// expectAPIServiceAvailable waits until the API server reports whatif's APIService Available:
// it reaches the operator through the APIService's Service and trusts its certificate.
func (c *installCluster) expectAPIServiceAvailable(t *testing.T) {
	t.Helper()
	apiService := &unstructured.Unstructured{}
	apiService.SetGroupVersionKind(apiServicesResource.GroupVersion().WithKind("APIService"))
	eventually(t, 2*time.Minute, "APIService "+explainAPIService+" Available", func() (bool, string) {
		if err := c.kube.Get(t.Context(), client.ObjectKey{Name: explainAPIService}, apiService); err != nil {
			return false, err.Error()
		}
		conditions, _, _ := unstructured.NestedSlice(apiService.Object, "status", "conditions")
		for _, condition := range conditions {
			if condition, ok := condition.(map[string]any); ok && condition["type"] == "Available" {
				return condition["status"] == "True", fmt.Sprintf("Available=%v (%v): %v", condition["status"], condition["reason"], condition["message"])
			}
		}
		return false, "no Available condition"
	})
}

// kubeconfigWithToken writes a kubeconfig for the cluster's server and CA, authenticating as
// the user of token, and returns its path.
func (c *installCluster) kubeconfigWithToken(t *testing.T, user, token string) string {
	t.Helper()
	ca := c.config.CAData
	if len(ca) == 0 {
		var err error
		if ca, err = os.ReadFile(c.config.CAFile); err != nil {
			t.Fatalf("reading the cluster's CA: %v", err)
		}
	}
	config := clientcmdapi.NewConfig()
	config.Clusters["local"] = &clientcmdapi.Cluster{Server: c.config.Host, CertificateAuthorityData: ca}
	config.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	config.Contexts[user] = &clientcmdapi.Context{Cluster: "local", AuthInfo: user, Namespace: installNamespace}
	config.CurrentContext = user
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*config, path); err != nil {
		t.Fatalf("writing the kubeconfig of %s: %v", user, err)
	}
	return path
}

// createThroughWebhooks creates object, retrying only while the API server cannot call the
// operator's webhooks. OLM makes a new CA on every install pass and rolls the pods to a
// serving certificate it signed; a pass can come after the CSV is Succeeded (it reinstalls
// when the CA in the webhook configurations, the Secret and the pods disagree), and until
// the pods have rolled the API server does not trust the one that answers. A client applying
// manifests during an OLM upgrade sees the same and retries; any other error fails the test.
func (c *installCluster) createThroughWebhooks(t *testing.T, object client.Object) {
	t.Helper()
	what := object.GetObjectKind().GroupVersionKind().Kind + " " + object.GetName()
	start := time.Now()
	retries, first := 0, ""
	eventually(t, 2*time.Minute, "creating "+what, func() (bool, string) {
		err := c.kube.Create(t.Context(), object.DeepCopyObject().(client.Object))
		if err == nil {
			return true, ""
		}
		if !strings.Contains(err.Error(), "failed calling webhook") {
			t.Fatalf("creating %s: %v", what, err)
		}
		retries++
		first = cmp.Or(first, err.Error())
		return false, err.Error()
	})
	if retries > 0 {
		t.Logf("%s created after %s; the webhooks could not be called %d times before, first: %s",
			what, time.Since(start).Round(time.Millisecond), retries, first)
	}
}

func readyCondition(object *unstructured.Unstructured) map[string]any {
	conditions, _, _ := unstructured.NestedSlice(object.Object, "status", "conditions")
	for _, condition := range conditions {
		if condition, ok := condition.(map[string]any); ok && condition["type"] == "Ready" {
			return condition
		}
	}
	return nil
}

// deleteCRDs is the documents' last uninstall step, after NodeClaims, NodePools and
// KCNodeClasses are gone.
func (c *installCluster) deleteCRDs(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	for _, name := range []string{"nodeclaims.karpenter.sh", "nodepools.karpenter.sh", "kcnodeclasses.karpenter.kakaocloud.com"} {
		crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if err := c.kube.Delete(ctx, crd); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting CRD %s: %v", name, err)
		}
		eventually(t, time.Minute, "CRD "+name+" gone", func() (bool, string) {
			err := c.kube.Get(ctx, client.ObjectKeyFromObject(crd), crd.DeepCopy())
			return apierrors.IsNotFound(err), fmt.Sprint(err)
		})
	}
}

// standInKubelet runs the manager binary for every pod of the operator's Deployment that
// the scheduler bound to a node, and stops it when the pod goes, as a kubelet would.
type standInKubelet struct {
	t        *testing.T
	cluster  *installCluster
	selector labels.Selector

	mu        sync.Mutex
	processes map[string]*podProcess // by pod UID
	started   []string               // pod names, in order
	// restarts counts, by pod UID, the times its container exited and was started again;
	// notBefore is when the next start may be, as a kubelet backs off a crashing container.
	restarts  map[string]int
	notBefore map[string]time.Time
}

// runPods starts the stand-in kubelet for the pods in installNamespace that selector matches;
// it stops with the test.
func (c *installCluster) runPods(t *testing.T, selector labels.Selector) *standInKubelet {
	kubelet := &standInKubelet{t: t, cluster: c, selector: selector, processes: map[string]*podProcess{},
		restarts: map[string]int{}, notBefore: map[string]time.Time{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			kubelet.sync(ctx)
			return false, nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		if t.Failed() {
			kubelet.logPods()
		}
		kubelet.mu.Lock()
		defer kubelet.mu.Unlock()
		for uid, process := range kubelet.processes {
			// A failed spec shows what the operator said, which goes with its folder.
			if t.Failed() {
				t.Logf("the container of pod %s (%s); its log ends:\n%s", process.pod, process.state(), lastLines(process.log, 30, nil))
			}
			process.stop()
			delete(kubelet.processes, uid)
		}
	})
	return kubelet
}

// logPods says where each pod the stand-in kubelet runs for stands: whether the scheduler
// bound it, and its phase.
func (k *standInKubelet) logPods() {
	pods := &corev1.PodList{}
	if err := k.cluster.kube.List(context.Background(), pods, client.InNamespace(installNamespace), client.MatchingLabelsSelector{Selector: k.selector}); err != nil {
		k.t.Logf("listing the pods: %v", err)
		return
	}
	for _, pod := range pods.Items {
		scheduled := "not yet tried"
		for _, condition := range pod.Status.Conditions {
			if condition.Type == corev1.PodScheduled {
				scheduled = strings.TrimSpace(fmt.Sprintf("%s %s %s", condition.Status, condition.Reason, condition.Message))
			}
		}
		k.t.Logf("pod %s: node %q, phase %s, scheduled: %s, deleted: %t", pod.Name, pod.Spec.NodeName, pod.Status.Phase, scheduled, !pod.DeletionTimestamp.IsZero())
	}
}

func (k *standInKubelet) sync(ctx context.Context) {
	pods := &corev1.PodList{}
	if err := k.cluster.kube.List(ctx, pods, client.InNamespace(installNamespace), client.MatchingLabelsSelector{Selector: k.selector}); err != nil {
		return
	}
	live := map[string]bool{}
	for i := range pods.Items {
		pod := &pods.Items[i]
		if pod.Spec.NodeName == "" || !pod.DeletionTimestamp.IsZero() || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			continue
		}
		uid := string(pod.UID)
		live[uid] = true
		k.mu.Lock()
		process, running := k.processes[uid]
		k.mu.Unlock()
		if running && process.hasExited() {
			k.restartLater(uid, process)
			running = false
		}
		if running {
			k.routePodIP(pod)
			continue
		}
		k.mu.Lock()
		backingOff := time.Now().Before(k.notBefore[uid])
		k.mu.Unlock()
		if backingOff {
			continue
		}
		process, err := k.cluster.startPodProcess(ctx, pod)
		if err != nil {
			k.t.Errorf("starting the container of pod %s: %v", pod.Name, err)
			live[uid] = false
			continue
		}
		k.mu.Lock()
		k.processes[uid] = process
		if k.restarts[uid] == 0 {
			k.started = append(k.started, pod.Name)
		}
		k.mu.Unlock()
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for uid, process := range k.processes {
		if !live[uid] {
			process.stop()
			delete(k.processes, uid)
		}
	}
}

// restartLater forgets a container that exited, so that the next sync starts it again as a
// kubelet restarts the container of a pod whose restartPolicy is Always: at once the first
// time, then after 10 s, 20 s and 40 s at most. The exit and the container's last lines are
// logged, so that a crash a restart papers over is still seen.
func (k *standInKubelet) restartLater(uid string, process *podProcess) {
	k.t.Logf("the container of pod %s exited (%s); its log ends:\n%s", process.pod, process.state(), lastLines(process.log, 30, nil))
	process.stop()
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.processes, uid)
	if restarts := k.restarts[uid]; restarts > 0 {
		k.notBefore[uid] = time.Now().Add(10 * time.Second << min(restarts-1, 2))
	}
	k.restarts[uid]++
}

// routePodIP adds the routes from the pod's IP, once it has one, to where its ports listen:
// the API server's proxy to a Service dials the IP of one of its pods.
func (k *standInKubelet) routePodIP(pod *corev1.Pod) {
	k.mu.Lock()
	defer k.mu.Unlock()
	process := k.processes[string(pod.UID)]
	if process == nil || process.podIP != "" || pod.Status.PodIP == "" {
		return
	}
	var routes []string
	for port, address := range process.ports {
		routes = append(routes, fmt.Sprintf("%s %s", net.JoinHostPort(pod.Status.PodIP, strconv.Itoa(int(port))), address))
	}
	if err := editRoutes(process.file, routes, nil); err != nil {
		k.t.Errorf("routing pod %s's IP: %v", pod.Name, err)
		return
	}
	process.podIP = pod.Status.PodIP
	process.routes = append(process.routes, routes...)
}

// podsStarted are the pods the stand-in kubelet has run a process for, in order.
func (k *standInKubelet) podsStarted() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.started)
}

// podProcess is the manager running for one pod.
type podProcess struct {
	pod    string
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
	// exit is how the process ended, set before exited is closed.
	exit   string
	routes []string
	file   string
	// ports are the container's ports and the loopback addresses they listen on; podIP is
	// the pod's IP once routed to them.
	ports map[int32]string
	podIP string
}

// runInPodScript projects the pod's ServiceAccount volume where every in-cluster client
// looks for it, in a mount namespace of the process's own, then runs the container command.
const runInPodScript = `set -e
run="$(readlink -f /var/run)"
mount -t tmpfs tmpfs "$run"
mkdir -p "$run/secrets/kubernetes.io/serviceaccount"
cp "$SERVICE_ACCOUNT_DIR"/token "$SERVICE_ACCOUNT_DIR"/ca.crt "$SERVICE_ACCOUNT_DIR"/namespace "$run/secrets/kubernetes.io/serviceaccount/"
unset SERVICE_ACCOUNT_DIR
exec "$@"
`

func (c *installCluster) startPodProcess(ctx context.Context, pod *corev1.Pod) (*podProcess, error) {
	container := pod.Spec.Containers[0]
	if !slices.Equal(container.Command, []string{"/manager"}) {
		return nil, fmt.Errorf("container %s runs %v, not this operator's /manager", container.Name, container.Command)
	}
	podDir := filepath.Join(c.dir, "pods", pod.Name)
	if err := os.MkdirAll(podDir, 0o700); err != nil {
		return nil, err
	}

	// The ServiceAccount volume: a token bound to the pod, the cluster CA, the namespace.
	token, err := c.clients.CoreV1().ServiceAccounts(pod.Namespace).CreateToken(ctx, pod.Spec.ServiceAccountName, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{
			ExpirationSeconds: new(int64(3600)),
			BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("a token for ServiceAccount %s: %w", pod.Spec.ServiceAccountName, err)
	}
	ca, err := os.ReadFile(c.env["APISERVER_CA"])
	if err != nil {
		return nil, err
	}
	serviceAccountDir := filepath.Join(podDir, "serviceaccount")
	if err := writeFiles(serviceAccountDir, map[string][]byte{
		"token": []byte(token.Status.Token), "ca.crt": ca, "namespace": []byte(pod.Namespace),
	}); err != nil {
		return nil, err
	}

	// Secret volumes, staged on this machine; arguments naming a mount path are pointed at
	// the staged copy.
	mounts := map[string]string{}
	for _, mount := range container.VolumeMounts {
		volume := volumeNamed(pod, mount.Name)
		if volume == nil || volume.Secret == nil {
			continue
		}
		secret := &corev1.Secret{}
		if err := c.kube.Get(ctx, client.ObjectKey{Namespace: pod.Namespace, Name: volume.Secret.SecretName}, secret); err != nil {
			return nil, fmt.Errorf("Secret %s of volume %s: %w", volume.Secret.SecretName, volume.Name, err)
		}
		files := map[string][]byte{}
		if len(volume.Secret.Items) == 0 {
			files = secret.Data
		}
		for _, item := range volume.Secret.Items {
			files[item.Path] = secret.Data[item.Key]
		}
		staged := filepath.Join(podDir, "volumes", mount.Name)
		if err := writeFiles(staged, files); err != nil {
			return nil, err
		}
		mounts[mount.MountPath] = staged
	}

	// Ports: each address the container listens on moves to a free loopback port.
	ports := map[int32]string{}
	listen := func(port int32) (string, error) {
		if address, ok := ports[port]; ok {
			return address, nil
		}
		address, err := freeLoopbackAddress()
		ports[port] = address
		return address, err
	}
	var args []string
	webhookBound := false
	for _, arg := range container.Args {
		name, value, hasValue := strings.Cut(arg, "=")
		if hasValue {
			if staged, ok := stagedPath(mounts, value); ok {
				value = staged
			} else if host, port, err := net.SplitHostPort(value); err == nil && (host == "" || host == "0.0.0.0") {
				number, _ := strconv.Atoi(port)
				if value, err = listen(int32(number)); err != nil {
					return nil, err
				}
			}
			webhookBound = webhookBound || name == "--webhook-bind-address"
			arg = name + "=" + value
		}
		args = append(args, arg)
	}
	for _, port := range container.Ports {
		if port.Name == "webhook-server" && !webhookBound {
			address, err := listen(port.ContainerPort)
			if err != nil {
				return nil, err
			}
			args = append(args, "--webhook-bind-address="+address)
		}
	}

	// The environment, as the kubelet gives it: the container's variables and the API server.
	apiServer, err := url.Parse(c.env["APISERVER"])
	if err != nil {
		return nil, err
	}
	environment := []string{
		"PATH=" + os.Getenv("PATH"),
		"KUBERNETES_SERVICE_HOST=" + apiServer.Hostname(), "KUBERNETES_SERVICE_PORT=" + apiServer.Port(),
		"SERVICE_ACCOUNT_DIR=" + serviceAccountDir,
	}
	for _, variable := range container.Env {
		value := variable.Value
		if from := variable.ValueFrom; from != nil {
			switch {
			case from.FieldRef != nil && from.FieldRef.FieldPath == "metadata.namespace":
				value = pod.Namespace
			case from.FieldRef != nil && from.FieldRef.FieldPath == "metadata.name":
				value = pod.Name
			case from.FieldRef != nil && from.FieldRef.FieldPath == "spec.serviceAccountName":
				value = pod.Spec.ServiceAccountName
			default:
				return nil, fmt.Errorf("environment variable %s: only metadata.namespace, metadata.name and spec.serviceAccountName are stood in for", variable.Name)
			}
		}
		environment = append(environment, variable.Name+"="+value)
	}

	// A restarted container's log goes on after the earlier one's.
	logPath := filepath.Join(podDir, "container.log")
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	command := exec.Command("unshare", append([]string{"--user", "--map-root-user", "--mount", "--", "sh", "-c", runInPodScript, "sh", c.env["OPERATOR_BINARY"]}, args...)...)
	command.Env = environment
	command.Stdout, command.Stderr = logFile, logFile
	command.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := command.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting the manager: %w", err)
	}
	process := &podProcess{pod: pod.Name, cmd: command, log: logPath, exited: make(chan struct{}), file: c.env["SERVICE_ROUTES"], ports: ports}
	go func() {
		err := command.Wait()
		_ = logFile.Close()
		process.exit = "exit status 0"
		if err != nil {
			process.exit = err.Error()
		}
		close(process.exited)
	}()

	// Routes from the pod's Services to where its ports now listen.
	services := &corev1.ServiceList{}
	if err := c.kube.List(ctx, services, client.InNamespace(pod.Namespace)); err != nil {
		process.stop()
		return nil, err
	}
	for _, service := range services.Items {
		if len(service.Spec.Selector) == 0 || !labels.SelectorFromSet(service.Spec.Selector).Matches(labels.Set(pod.Labels)) {
			continue
		}
		for _, port := range service.Spec.Ports {
			target := port.TargetPort.IntVal
			for _, containerPort := range container.Ports {
				if port.TargetPort.StrVal != "" && containerPort.Name == port.TargetPort.StrVal {
					target = containerPort.ContainerPort
				}
			}
			address, ok := ports[target]
			if !ok {
				continue
			}
			names := []string{fmt.Sprintf("%s.%s.svc", service.Name, service.Namespace)}
			if service.Spec.ClusterIP != "" && service.Spec.ClusterIP != corev1.ClusterIPNone {
				names = append(names, service.Spec.ClusterIP)
			}
			for _, name := range names {
				process.routes = append(process.routes, fmt.Sprintf("%s %s", net.JoinHostPort(name, strconv.Itoa(int(port.Port))), address))
			}
		}
	}
	if err := editRoutes(process.file, process.routes, nil); err != nil {
		process.stop()
		return nil, err
	}
	return process, nil
}

func (p *podProcess) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// state says whether the process runs, or how it ended.
func (p *podProcess) state() string {
	if p.hasExited() {
		return "exited: " + p.exit
	}
	return "running"
}

// lastLines is the end of a log file: its last n lines that keep accepts (every line when
// keep is nil).
func lastLines(path string, n int, keep func(line string) bool) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	var lines []string
	for line := range strings.SplitSeq(strings.TrimRight(string(data), "\n"), "\n") {
		if keep == nil || keep(line) {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// stop ends the process as the kubelet does, SIGTERM then SIGKILL, and removes its routes.
func (p *podProcess) stop() {
	_ = editRoutes(p.file, nil, p.routes)
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	}
}

var routesMu sync.Mutex

// editRoutes adds and removes lines of the Service network's routes file.
func editRoutes(file string, add, remove []string) error {
	routesMu.Lock()
	defer routesMu.Unlock()
	data, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var lines []string
	for line := range strings.SplitSeq(string(data), "\n") {
		if line != "" && !slices.Contains(remove, line) {
			lines = append(lines, line)
		}
	}
	lines = append(lines, add...)
	var out bytes.Buffer
	for _, line := range lines {
		out.WriteString(line + "\n")
	}
	return os.WriteFile(file, out.Bytes(), 0o600)
}

func volumeNamed(pod *corev1.Pod, name string) *corev1.Volume {
	for i := range pod.Spec.Volumes {
		if pod.Spec.Volumes[i].Name == name {
			return &pod.Spec.Volumes[i]
		}
	}
	return nil
}

// stagedPath maps a path inside a mounted volume to the staged copy.
func stagedPath(mounts map[string]string, path string) (string, bool) {
	for mountPath, staged := range mounts {
		if path == mountPath || strings.HasPrefix(path, strings.TrimSuffix(mountPath, "/")+"/") {
			return staged + strings.TrimPrefix(path, mountPath), true
		}
	}
	return "", false
}

func writeFiles(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

func freeLoopbackAddress() (string, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer func() { _ = listener.Close() }()
	return listener.Addr().String(), nil
}

// authenticationTokenRequest asks for an hour's token of a ServiceAccount.
var authenticationTokenRequest = authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(3600))}}
