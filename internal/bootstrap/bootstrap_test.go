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

package bootstrap_test

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/bootstrap"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/catalog"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instancetype"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
)

const ca = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n"

func TestUserDataRegistersTheNodeAsItsNodeClaim(t *testing.T) {
	script, err := bootstrap.UserData(bootstrap.Options{
		Endpoint: "https://10.0.0.1:6443", CABundle: []byte(ca), Token: "abcdef.0123456789abcdef",
		Labels: map[string]string{
			karpv1.LabelNodePool: "checkout", "team": "checkout",
			"kubernetes.io/role": "not-allowed-for-kubelets", corev1.LabelTopologyZone: "kr-central-2-a",
		},
		Taints: []corev1.Taint{
			{Key: "dedicated", Value: "CheckoutApp", Effect: corev1.TaintEffectNoSchedule},
			karpv1.UnregisteredNoExecuteTaint,
		},
		Kubelet: &kcv1.KubeletConfiguration{
			MaxPods:                 ptr.To[int32](58),
			KubeReserved:            map[string]string{"memory": "500Mi", "cpu": "100m"},
			EvictionHard:            map[string]string{"memory.available": "5%"},
			EvictionSoft:            map[string]string{"memory.available": "10%"},
			EvictionSoftGracePeriod: map[string]metav1.Duration{"memory.available": {Duration: time.Minute}},
		},
		Reservations: instancetype.KubeletReservations{
			MaxPods: 58,
			KubeReserved: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("500Mi"),
				corev1.ResourceEphemeralStorage: resource.MustParse("1Gi"),
			},
			EvictionHard: map[string]string{"memory.available": "5%", "nodefs.available": "10%"},
		},
		ExtraUserData: "#!/bin/bash\necho tuned > /tmp/tuned\n",
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"server: https://10.0.0.1:6443",
		"token: abcdef.0123456789abcdef",
		"echo '" + base64.StdEncoding.EncodeToString([]byte(ca)) + "' | base64 -d > /etc/kubernetes/pki/ca.crt",
		"--provider-id=kakaocloud://@INSTANCE_ID@",
		`sed -i "s/@INSTANCE_ID@/${INSTANCE_ID}/" /etc/default/kubelet`,
		"--node-labels=karpenter.sh/nodepool=checkout,team=checkout,topology.kubernetes.io/zone=kr-central-2-a ",
		"--register-with-taints=dedicated=CheckoutApp:NoSchedule,karpenter.sh/unregistered:NoExecute",
		"--max-pods=58 --kube-reserved=cpu=100m,ephemeral-storage=1Gi,memory=500Mi --eviction-hard=memory.available<5%,nodefs.available<10% --eviction-soft=memory.available<10% --eviction-soft-grace-period=memory.available=1m0s",
		"echo tuned > /tmp/tuned",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("the script lacks %q:\n%s", want, script)
		}
	}
	if strings.Contains(script, "kubernetes.io/role") {
		t.Error("the script passes a label the NodeRestriction admission plugin refuses to kubelets")
	}
	if strings.Index(script, "echo tuned") > strings.Index(script, "systemctl restart kubelet") {
		t.Error("the KCNodeClass's user data must run before the kubelet starts")
	}
}

func TestUserDataRefusesWhatCannotWork(t *testing.T) {
	pods := instancetype.KubeletReservations{MaxPods: 110}
	good := bootstrap.Options{Endpoint: "https://10.0.0.1:6443", CABundle: []byte(ca), Token: "abcdef.0123456789abcdef", Reservations: pods}
	for name, o := range map[string]bootstrap.Options{
		"no endpoint":        {CABundle: good.CABundle, Token: good.Token, Reservations: pods},
		"no token":           {Endpoint: good.Endpoint, CABundle: good.CABundle, Reservations: pods},
		"no reservations":    {Endpoint: good.Endpoint, CABundle: good.CABundle, Token: good.Token},
		"heredoc terminator": {Endpoint: good.Endpoint, CABundle: good.CABundle, Token: good.Token, Reservations: pods, ExtraUserData: "KARPENTER_EXTRA_EOF\nrm -rf /"},
		"too long":           {Endpoint: good.Endpoint, CABundle: good.CABundle, Token: good.Token, Reservations: pods, ExtraUserData: strings.Repeat("#", 13000)},
	} {
		if _, err := bootstrap.UserData(o); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func TestBootstrapperMintsAShortLivedTokenPerNodeClaim(t *testing.T) {
	kube := test.APIServer(t)
	_, kc := test.Cloud(t, emulator.Options{})
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	b := &bootstrap.Bootstrapper{
		Client: kube, Cluster: catalog.New(kc, catalog.Options{ClusterName: "karpenter-demo"}),
		CABundle: []byte(ca), Clock: clocktesting.NewFakePassiveClock(now),
	}
	nodeClaim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-abcde", Labels: map[string]string{karpv1.LabelNodePool: "default"}}}
	script := render(t, b, nodeClaim)
	secrets := &corev1.SecretList{}
	if err := kube.List(context.Background(), secrets, client.InNamespace("kube-system"), client.MatchingLabels{kcv1.Group + "/nodeclaim": "default-abcde"}); err != nil {
		t.Fatal(err)
	}
	if len(secrets.Items) != 1 {
		t.Fatalf("bootstrap token Secrets = %d, want 1", len(secrets.Items))
	}
	s := secrets.Items[0]
	id, secret := string(s.Data["token-id"]), string(s.Data["token-secret"])
	if s.Type != corev1.SecretTypeBootstrapToken || s.Name != "bootstrap-token-"+id || len(id) != 6 || len(secret) != 16 {
		t.Errorf("Secret %s of type %s with id %q and a %d-character secret; want a bootstrap token", s.Name, s.Type, id, len(secret))
	}
	if got := string(s.Data["expiration"]); got != "2026-11-29T12:20:00Z" {
		t.Errorf("expiration = %s, want the launch and registration timeouts (5m and 15m) from now", got)
	}
	if string(s.Data["auth-extra-groups"]) != bootstrap.TokenGroup || string(s.Data["usage-bootstrap-authentication"]) != "true" {
		t.Errorf("token usages/groups = %v", s.Data)
	}
	if _, signing := s.Data["usage-bootstrap-signing"]; signing {
		t.Error("the token may sign kube-public/cluster-info: its JWS would be readable by anyone, and the node has the CA from its script")
	}
	for _, want := range []string{"token: " + id + "." + secret, "server: https://127.0.0.1:6443", "--node-labels=karpenter.sh/nodepool=default "} {
		if !strings.Contains(script, want) {
			t.Errorf("the script lacks %q", want)
		}
	}
}

// Every launch attempt of a NodeClaim hands out the same token from one Secret; another
// NodeClaim, even of the same name, gets another.
func TestBootstrapperReusesTheNodeClaimsTokenAcrossAttempts(t *testing.T) {
	kube := test.APIServer(t)
	_, kc := test.Cloud(t, emulator.Options{})
	b := &bootstrap.Bootstrapper{
		Client: kube, Cluster: catalog.New(kc, catalog.Options{ClusterName: "karpenter-demo"}), CABundle: []byte(ca), Keyring: test.Keyring(),
	}
	ctx := context.Background()
	tokenOf := func(uid types.UID) string {
		t.Helper()
		nodeClaim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-retry", UID: uid}}
		script := render(t, b, nodeClaim)
		_, rest, _ := strings.Cut(script, "token: ")
		token, _, _ := strings.Cut(rest, "\n")
		return token
	}
	first, second := tokenOf("uid-1"), tokenOf("uid-1")
	if first == "" || first != second {
		t.Fatalf("tokens of two attempts: %q and %q, want one token", first, second)
	}
	if other := tokenOf("uid-2"); other == first {
		t.Errorf("another NodeClaim of the same name got the same token %q", other)
	}
	secrets := &corev1.SecretList{}
	if err := kube.List(ctx, secrets, client.InNamespace("kube-system"), client.MatchingLabels{kcv1.Group + "/nodeclaim": "default-retry"}); err != nil {
		t.Fatal(err)
	}
	if len(secrets.Items) != 2 {
		t.Errorf("bootstrap token Secrets = %d, want 2 (one per NodeClaim, not per attempt)", len(secrets.Items))
	}
}

// render is the NodeClaim's join script as a 2-vCPU instance type.
func render(t *testing.T, b *bootstrap.Bootstrapper, nodeClaim *karpv1.NodeClaim) string {
	t.Helper()
	script, err := b.UserData(context.Background(), nodeClaim, &kcv1.KCNodeClass{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := script(&cloudprovider.InstanceType{Name: "m2a.large", Capacity: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("110")}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A token write the operator has no right to fails saying what was being done and what grants
// the right.
func TestRefusedTokenWritesSayWhatGrantsThem(t *testing.T) {
	forbidden := apierrors.NewForbidden(corev1.Resource("secrets"), "", errors.New("no RBAC policy matched"))
	kube := fake.NewClientBuilder().WithInterceptorFuncs(interceptor.Funcs{
		Create: func(context.Context, client.WithWatch, client.Object, ...client.CreateOption) error { return forbidden },
		DeleteAllOf: func(context.Context, client.WithWatch, client.Object, ...client.DeleteAllOfOption) error {
			return forbidden
		},
	}).Build()
	_, kc := test.Cloud(t, emulator.Options{})
	b := &bootstrap.Bootstrapper{Client: kube, Cluster: catalog.New(kc, catalog.Options{ClusterName: "karpenter-demo"}), CABundle: []byte(ca)}
	nodeClaim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-abcde", UID: "uid-1"}}
	_, createErr := b.UserData(context.Background(), nodeClaim, &kcv1.KCNodeClass{})
	deleteErr := bootstrap.DeleteTokens(context.Background(), kube, nodeClaim.UID)
	for what, err := range map[string]error{"creating a bootstrap token for NodeClaim default-abcde in kube-system": createErr, "deleting the bootstrap token of NodeClaim uid-1 in kube-system": deleteErr} {
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), what) || !strings.Contains(err.Error(), "config/olm-kube-system") {
			t.Errorf("the refusal reads %v; want Forbidden, %q and the manifest that grants it", err, what)
		}
	}
}
