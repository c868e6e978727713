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

package e2e

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/explain"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/plugin"
)

var _ = Describe("kubectl karpenter", func() {
	It("why pod names the NodePool limit a pending pod waits on, from the operator's simulation of the pod", func() {
		createPool("plugin-limited", func(p *karpv1.NodePool) {
			p.Spec.Limits = karpv1.Limits{corev1.ResourceCPU: resource.MustParse("1")}
		})
		createPoolPod("plugin-limited", "plugin-limited", "2")

		Eventually(func(g Gomega) {
			answer := &plugin.PodAnswer{}
			kubectlKarpenter(g, answer, "why", "pod", namespace+"/plugin-limited")
			// The refusals come from the operator's whatif about the pod as it is now; what
			// provisioning said of it is shown beside them, not read.
			g.Expect(answer.Simulated).NotTo(BeNil(), answer.Verdict)
			g.Expect(answer.Words).To(ContainElement(HaveField("Reason", "FailedScheduling")))
			g.Expect(answer.DecidedAt).NotTo(BeNil())
			g.Expect(answer.RefusedBy).To(ContainElement(HaveField("NodePool", "plugin-limited")))
			for _, r := range answer.RefusedBy {
				if r.NodePool == "plugin-limited" {
					g.Expect(r.Reason).To(Equal("would exceed limits cpu"))
				}
			}
		}).Should(Succeed())
		table := kubectlKarpenterTable(Default, "why", "pod", "plugin-limited", "-n", namespace)
		Expect(table).To(MatchRegexp(`plugin-limited\s+would exceed limits cpu`))
	})

	It("whatif of a KCNodeClass version change names exactly the nodes that drift when it is applied; why node names the PodDisruptionBudget and pod that hold one; why nodepool lists them", func() {
		createPoolOf("plugin-drift", func(nodeClass *kcv1.KCNodeClass) {
			nodeClass.Spec.Bootstrap.KubernetesVersion = "1.35"
		}, func(p *karpv1.NodePool) {
			// Two-CPU nodes hold one one-CPU pod each: two pods, two nodes.
			p.Spec.Template.Spec.Requirements = append(p.Spec.Template.Spec.Requirements, requirement(kcv1.LabelInstanceCPU, corev1.NodeSelectorOpIn, "2"))
		})
		createDeployment("plugin-drift", 2, poolPod("plugin-drift", "plugin-drift", "1"))
		pdb := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "plugin-drift", Namespace: namespace},
			Spec: policyv1.PodDisruptionBudgetSpec{
				MaxUnavailable: new(intstr.FromInt32(0)),
				Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "plugin-drift"}},
			},
		}
		Expect(kube.Create(ctx, pdb)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(kube.Delete(ctx, pdb))).To(Succeed()) })
		Eventually(func(g Gomega) {
			g.Expect(running(podsOf("plugin-drift")(g))).To(Equal(2))
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(pdb), pdb)).To(Succeed())
			g.Expect(pdb.Status.ExpectedPods).To(BeEquivalentTo(2))
			g.Expect(pdb.Status.DisruptionsAllowed).To(BeZero())
		}).Should(Succeed())
		claims := claimNames(claimsOf("plugin-drift")(Default))
		Expect(claims).To(HaveLen(2))
		// Another class's node, which the change must not name.
		createPool("plugin-other", nil)
		createDeployment("plugin-other", 1, poolPod("plugin-other", "plugin-other", "1"))
		Eventually(func(g Gomega) int { return running(podsOf("plugin-other")(g)) }).Should(Equal(1))

		By("asking what the version change would drift, before applying it")
		nodeClass := &kcv1.KCNodeClass{}
		Expect(kube.Get(ctx, client.ObjectKey{Name: "plugin-drift"}, nodeClass)).To(Succeed())
		edited := &kcv1.KCNodeClass{TypeMeta: metav1.TypeMeta{APIVersion: kcv1.GroupVersion.String(), Kind: "KCNodeClass"},
			ObjectMeta: metav1.ObjectMeta{Name: nodeClass.Name}, Spec: *nodeClass.Spec.DeepCopy()}
		edited.Spec.Bootstrap.KubernetesVersion = "1.36"
		reader := serviceAccountAsker("plugin-drift-reader", true)
		whatif := &explain.WhatIfAnswer{}
		reader.whatIf(Default, whatif, "-f", manifestFile(edited))
		reader.expectAskedThroughWhatIfAPIOnly()
		var predicted []string
		for _, d := range whatif.Drifts {
			predicted = append(predicted, d.NodeClaim)
			Expect(d.Reason).To(Equal("KubernetesVersionDrift"))
		}
		slices.Sort(predicted)
		Expect(predicted).To(Equal(claims), "whatif names the class's two NodeClaims")
		// Each pod moves to a node like the one it leaves: two launches, at no cost.
		Expect(whatif.Launches).To(HaveLen(2))
		for _, launch := range whatif.Launches {
			Expect(launch).To(SatisfyAll(HaveField("NodePool", "plugin-drift"), HaveField("Pods", 1)))
		}
		Expect(whatif.Cost.Change).To(BeNumerically("~", 0, 1e-9))

		By("applying it: exactly those drift")
		update(&kcv1.KCNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "plugin-drift"}}, func(nodeClass *kcv1.KCNodeClass) {
			nodeClass.Spec.Bootstrap.KubernetesVersion = "1.36"
		})
		driftedNow := func(g Gomega) []string {
			list := &karpv1.NodeClaimList{}
			g.Expect(kube.List(ctx, list)).To(Succeed())
			var drifted []string
			for _, c := range list.Items {
				if meta.IsStatusConditionTrue(c.Status.Conditions, karpv1.ConditionTypeDrifted) {
					drifted = append(drifted, c.Name)
				}
			}
			slices.Sort(drifted)
			return drifted
		}
		Eventually(driftedNow).Should(Equal(predicted))
		Consistently(driftedNow).Should(Equal(predicted), "no other NodeClaim drifts")

		By("asking why a drifted node stays: the PodDisruptionBudget and its pod")
		node := nodesOf("plugin-drift")(Default)[0]
		Eventually(func(g Gomega) {
			answer := &plugin.NodeAnswer{}
			kubectlKarpenter(g, answer, "why", "node", node.Name)
			g.Expect(answer.Verdict).To(MatchRegexp(`PodDisruptionBudget ` + namespace + `/plugin-drift allows no disruption of pod ` + namespace + `/plugin-drift-\S+ now`))
			g.Expect(answer.Drifted).To(HavePrefix("KubernetesVersionDrift"))
		}).Should(Succeed())

		By("asking about the NodePool: both drifted, the budget's nodes")
		pool := &plugin.NodePoolAnswer{}
		kubectlKarpenter(Default, pool, "why", "nodepool", "plugin-drift")
		Expect(pool.Drifted).To(Equal(claims))
		Expect(pool.Nodes).To(Equal(2))
		Expect(pool.Budgets).To(ContainElement(SatisfyAll(HaveField("Reason", "Drifted"), HaveField("Budget", ContainSubstring("budget 0")))))
	})

	It("whatif pod says where a pod would land or what would launch for it; whatif of a NodePool edit gives the drift, the launch and the cost that applying it brings", func() {
		createPool("plugin-whatif", func(p *karpv1.NodePool) {
			p.Spec.Template.Spec.Requirements = append(p.Spec.Template.Spec.Requirements, requirement(kcv1.LabelInstanceCPU, corev1.NodeSelectorOpIn, "2"))
		})
		createDeployment("plugin-whatif", 1, poolPod("plugin-whatif", "plugin-whatif", "1"))
		Eventually(func(g Gomega) int { return running(podsOf("plugin-whatif")(g)) }).Should(Equal(1))
		node := nodesOf("plugin-whatif")(Default)[0]
		reader := serviceAccountAsker("plugin-whatif-reader", true)

		By("asking about pods that are not created")
		ask := func(who *asker, cpu string, tweak func(*corev1.PodSpec)) *explain.PodWhatIfAnswer {
			GinkgoHelper()
			template := poolPod("plugin-whatif", "plugin-whatif-question", cpu)
			pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "question", Namespace: namespace}, Spec: template.Spec}
			if tweak != nil {
				tweak(&pod.Spec)
			}
			answer := &explain.PodWhatIfAnswer{}
			who.whatIf(Default, answer, "pod", "-f", manifestFile(pod))
			return answer
		}
		Expect(ask(reader, "500m", nil).Node).To(Equal("node/"+node.Name), "half a CPU fits beside the running pod")
		launch := ask(reader, "1500m", nil).Launch
		Expect(launch).NotTo(BeNil(), "one and a half CPUs do not fit there")
		Expect(launch.NodePool).To(Equal("plugin-whatif"))
		Expect(launch.Pods).To(Equal(1))
		refused := ask(reader, "1", func(spec *corev1.PodSpec) { spec.NodeSelector[corev1.LabelArchStable] = "s390x" })
		Expect(refused.Node).To(BeEmpty())
		Expect(refused.RefusedBy).To(ContainElement(HaveField("NodePool", "plugin-whatif")))

		By("asking as a user of a client certificate, who has no token to pass on")
		certified := certificateAsker("whatif-cert-user")
		Expect(ask(certified, "500m", nil).Node).To(Equal("node/" + node.Name))
		certified.expectAskedThroughWhatIfAPIOnly()

		By("asking what four-CPU nodes would do, before applying it")
		live := &karpv1.NodePool{}
		Expect(kube.Get(ctx, client.ObjectKey{Name: "plugin-whatif"}, live)).To(Succeed())
		edited := &karpv1.NodePool{TypeMeta: metav1.TypeMeta{APIVersion: karpv1.GroupVersion.String(), Kind: "NodePool"},
			ObjectMeta: metav1.ObjectMeta{Name: live.Name}, Spec: *live.Spec.DeepCopy()}
		for i, r := range edited.Spec.Template.Spec.Requirements {
			if r.Key == kcv1.LabelInstanceCPU {
				edited.Spec.Template.Spec.Requirements[i].Values = []string{"4"}
			}
		}
		file := manifestFile(edited)
		whatif := &explain.WhatIfAnswer{}
		reader.whatIf(Default, whatif, "-f", file)
		claims := claimNames(claimsOf("plugin-whatif")(Default))
		Expect(whatif.Drifts).To(ConsistOf(SatisfyAll(HaveField("NodeClaim", claims[0]), HaveField("Reason", "RequirementsDrifted"))))
		Expect(whatif.Launches).To(ConsistOf(SatisfyAll(HaveField("NodePool", "plugin-whatif"), HaveField("Pods", 1))))
		Expect(whatif.Cost.Change).To(BeNumerically(">", 0), "a four-CPU node costs more than a two-CPU one")
		table := reader.whatIfTable(Default, "-f", file)
		Expect(table).To(MatchRegexp(`plugin-whatif\s+` + regexp.QuoteMeta(whatif.Launches[0].InstanceType) + `\s+`))
		reader.expectAskedThroughWhatIfAPIOnly()

		By("applying it: the node is replaced by one of the predicted type")
		update(&karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "plugin-whatif"}}, func(p *karpv1.NodePool) {
			p.Spec.Template.Spec.Requirements = edited.Spec.Template.Spec.Requirements
		})
		Eventually(func(g Gomega) {
			nodes := nodesOf("plugin-whatif")(g)
			g.Expect(nodes).To(HaveLen(1))
			g.Expect(nodes[0].Labels).To(HaveKeyWithValue(corev1.LabelInstanceTypeStable, whatif.Launches[0].InstanceType))
			g.Expect(running(podsOf("plugin-whatif")(g))).To(Equal(1))
		}).Should(Succeed())

		By("asking as a user not bound to the reader role: the API server refuses it")
		stranger := serviceAccountAsker("plugin-stranger", false)
		Expect(runPluginFailing(stranger.kubeconfig, "whatif", "-f", file)).
			To(ContainSubstring(`cannot create resource "whatifs" in API group "explain.karpenter.kakaocloud.com"`))
		Eventually(stranger.auditedCalls).WithTimeout(auditDelay).Should(ConsistOf(SatisfyAll(
			HaveField("Verb", "create"), HaveField("ResponseStatus.Code", BeEquivalentTo(http.StatusForbidden)),
			HaveField("Annotations", HaveKeyWithValue("authorization.k8s.io/decision", "forbid")))),
			"the API server's authorizer refused it, before the operator was asked")
	})
})

// kubectlKarpenter runs `kubectl karpenter ARGS -o json` as the local cluster's admin, kubectl
// finding the plugin on its PATH, and decodes its answer into answer.
func kubectlKarpenter(g Gomega, answer any, args ...string) {
	decodeAnswer(g, answer, runPlugin(g, cluster.kubeconfig, append(args, "-o", "json")...))
}

// kubectlKarpenterTable is kubectl karpenter's table for people, as the local cluster's admin.
func kubectlKarpenterTable(g Gomega, args ...string) string {
	return runPlugin(g, cluster.kubeconfig, args...)
}

func decodeAnswer(g Gomega, answer any, out string) {
	g.Expect(json.Unmarshal([]byte(out), answer)).To(Succeed(), out)
}

func runPlugin(g Gomega, kubeconfig string, args ...string) string {
	g.Expect(cluster.plugins).NotTo(BeEmpty(), "cluster.env names KUBECTL_PLUGINS")
	cmd := pluginCommand(kubeconfig, args...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	g.Expect(cmd.Run()).To(Succeed(), "kubectl karpenter %s: %s", strings.Join(args, " "), errs.String())
	return out.String()
}

// asker runs kubectl karpenter with a kubeconfig of its own: the local cluster's server and CA,
// and a credential of its own.
type asker struct {
	// user is its name as the API server authenticates it.
	user       string
	kubeconfig string
	// since is when it was made: earlier audit records of its name are another's.
	since time.Time
	// questions counts its whatif questions that were answered.
	questions int
}

// whatIf runs `kubectl karpenter whatif ARGS -o json` as a and decodes its answer into answer.
func (a *asker) whatIf(g Gomega, answer any, args ...string) {
	decodeAnswer(g, answer, a.runWhatIf(g, append(args, "-o", "json")...))
}

// whatIfTable is whatif's table for people, as a.
func (a *asker) whatIfTable(g Gomega, args ...string) string {
	return a.runWhatIf(g, args...)
}

func (a *asker) runWhatIf(g Gomega, args ...string) string {
	// The API server proxies to the operator only while it finds the APIService available: a
	// spec that restarts the operator leaves it unavailable until the API server's next check.
	Eventually(whatIfAPIAvailable).Should(BeTrue())
	out := runPlugin(g, a.kubeconfig, append([]string{"whatif"}, args...)...)
	a.questions++
	return out
}

// whatIfAPIAvailable is whether the API server's last check of the whatif API's APIService
// found the operator answering.
func whatIfAPIAvailable(g Gomega) bool {
	apiService := &unstructured.Unstructured{}
	apiService.SetAPIVersion("apiregistration.k8s.io/v1")
	apiService.SetKind("APIService")
	g.Expect(kube.Get(ctx, client.ObjectKey{Name: explain.APIServiceName}, apiService)).To(Succeed())
	conditions, _, err := unstructured.NestedSlice(apiService.Object, "status", "conditions")
	g.Expect(err).NotTo(HaveOccurred())
	return slices.ContainsFunc(conditions, func(condition any) bool {
		fields, _ := condition.(map[string]any)
		return fields["type"] == "Available" && fields["status"] == "True"
	})
}

// auditDelay bounds how long after its answer the API server's audit record of a request may
// be written.
const auditDelay = 10 * time.Second

// auditedCalls are the API server's audit records of a's requests (the local cluster records
// calls to the whatif API and to proxy subresources, nothing else).
func (a *asker) auditedCalls(g Gomega) []auditv1.Event {
	g.Expect(cluster.auditLog).NotTo(BeEmpty(), "cluster.env names AUDIT_LOG")
	data, err := os.ReadFile(cluster.auditLog)
	g.Expect(err).NotTo(HaveOccurred())
	var calls []auditv1.Event
	for line := range strings.Lines(string(data)) {
		event := auditv1.Event{}
		g.Expect(json.Unmarshal([]byte(line), &event)).To(Succeed(), line)
		if event.User.Username == a.user && !event.RequestReceivedTimestamp.Time.Before(a.since) {
			calls = append(calls, event)
		}
	}
	return calls
}

// expectAskedThroughWhatIfAPIOnly checks, in the API server's audit log, that each of a's
// answered whatif questions was a WhatIf created in the operator's aggregated API as a's user,
// and that a made no request to a proxy (a Service's, as whatif once did, or any other).
// That the operator answered at all says that a's question reached it without a credential:
// it refuses a whatif that carries one.
func (a *asker) expectAskedThroughWhatIfAPIOnly() {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		created := 0
		for _, call := range a.auditedCalls(g) {
			g.Expect(call.ObjectRef).NotTo(BeNil(), call.RequestURI)
			g.Expect(call.ObjectRef.Subresource).NotTo(Equal("proxy"), "%s called %s", a.user, call.RequestURI)
			if call.Verb == "create" && call.ObjectRef.APIGroup == explain.Group && call.ObjectRef.Resource == explain.Resource &&
				call.ResponseStatus != nil && call.ResponseStatus.Code == http.StatusOK {
				created++
			}
		}
		g.Expect(created).To(Equal(a.questions), "%s's answered WhatIfs", a.user)
	}).WithTimeout(auditDelay).Should(Succeed())
}

// serviceAccountAsker is ServiceAccount name with a token of its own (TokenRequest), bound to
// the plugin's reader role when bound, all removed when the spec ends.
func serviceAccountAsker(name string, bound bool) *asker {
	GinkgoHelper()
	since := time.Now()
	account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
	Expect(client.IgnoreAlreadyExists(kube.Create(ctx, account))).To(Succeed())
	DeferCleanup(func() { Expect(client.IgnoreNotFound(kube.Delete(ctx, account))).To(Succeed()) })
	if bound {
		bindReaderRole(rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: namespace})
	}
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(3600))}}
	Expect(kube.SubResource("token").Create(ctx, account, request)).To(Succeed())
	return newAsker("system:serviceaccount:"+namespace+":"+name, since, &clientcmdapi.AuthInfo{Token: request.Status.Token})
}

// certificateAsker is user name of a client certificate that the local cluster's CA signs,
// with no token at all, bound to the plugin's reader role until the spec ends.
func certificateAsker(name string) *asker {
	GinkgoHelper()
	since := time.Now()
	bindReaderRole(rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name})
	certificate, key := clientCertificate(name)
	return newAsker(name, since, &clientcmdapi.AuthInfo{ClientCertificateData: certificate, ClientKeyData: key})
}

// bindReaderRole binds subject to the plugin's reader role until the spec ends.
func bindReaderRole(subject rbacv1.Subject) {
	GinkgoHelper()
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-" + subject.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "karpenter-kakaocloud-plugin-reader-role"},
		Subjects:   []rbacv1.Subject{subject},
	}
	Expect(client.IgnoreAlreadyExists(kube.Create(ctx, binding))).To(Succeed())
	DeferCleanup(func() { Expect(client.IgnoreNotFound(kube.Delete(ctx, binding))).To(Succeed()) })
}

// clientCertificate is a client certificate of user name, signed with the local cluster's CA
// (the API server's --client-ca-file), and its key, both PEM.
func clientCertificate(name string) (certificatePEM, keyPEM []byte) {
	GinkgoHelper()
	caPEM, err := os.ReadFile(filepath.Join(cluster.dir, "pki", "ca.crt"))
	Expect(err).NotTo(HaveOccurred())
	caKeyPEM, err := os.ReadFile(filepath.Join(cluster.dir, "pki", "ca.key"))
	Expect(err).NotTo(HaveOccurred())
	block, _ := pem.Decode(caPEM)
	Expect(block).NotTo(BeNil(), "pki/ca.crt holds no PEM")
	ca, err := x509.ParseCertificate(block.Bytes)
	Expect(err).NotTo(HaveOccurred())
	block, _ = pem.Decode(caKeyPEM)
	Expect(block).NotTo(BeNil(), "pki/ca.key holds no PEM")
	caKey, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	Expect(err).NotTo(HaveOccurred())

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	Expect(err).NotTo(HaveOccurred())
	template := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, &key.PublicKey, caKey)
	Expect(err).NotTo(HaveOccurred())
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	Expect(err).NotTo(HaveOccurred())
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
}

// newAsker writes a kubeconfig of the local cluster's server and CA, as the admin's names them,
// with credential, for user.
func newAsker(user string, since time.Time, credential *clientcmdapi.AuthInfo) *asker {
	GinkgoHelper()
	admin, err := clientcmd.LoadFromFile(cluster.kubeconfig)
	Expect(err).NotTo(HaveOccurred())
	current, ok := admin.Contexts[admin.CurrentContext]
	Expect(ok).To(BeTrue(), "the admin kubeconfig has no current context")
	config := clientcmdapi.NewConfig()
	config.Clusters["local"] = admin.Clusters[current.Cluster]
	config.AuthInfos["asker"] = credential
	config.Contexts["asker"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "asker"}
	config.CurrentContext = "asker"
	file := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(clientcmd.WriteToFile(*config, file)).To(Succeed())
	return &asker{user: user, kubeconfig: file, since: since}
}

// manifestFile writes obj as YAML to a file of the spec and returns its path.
func manifestFile(obj client.Object) string {
	GinkgoHelper()
	manifest, err := yaml.Marshal(obj)
	Expect(err).NotTo(HaveOccurred())
	file := filepath.Join(GinkgoT().TempDir(), strings.ToLower(obj.GetObjectKind().GroupVersionKind().Kind)+".yaml")
	Expect(os.WriteFile(file, manifest, 0o600)).To(Succeed())
	return file
}

// runPluginFailing runs kubectl karpenter ARGS with kubeconfig, which must fail, and returns
// what it said.
func runPluginFailing(kubeconfig string, args ...string) string {
	GinkgoHelper()
	out, err := pluginCommand(kubeconfig, args...).CombinedOutput()
	Expect(err).To(HaveOccurred(), "kubectl karpenter %s: %s", strings.Join(args, " "), out)
	return string(out)
}

// pluginCommand is kubectl karpenter ARGS on the local cluster with kubeconfig, kubectl
// finding the plugin on its PATH.
func pluginCommand(kubeconfig string, args ...string) *exec.Cmd {
	// The plugin's name comes first: kubectl looks for plugins only up to the first flag, and
	// hands the flags after it to the plugin.
	cmd := exec.Command(cluster.kubectl, append([]string{"karpenter", "--kubeconfig", kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+cluster.plugins+string(os.PathListSeparator)+os.Getenv("PATH"))
	return cmd
}
