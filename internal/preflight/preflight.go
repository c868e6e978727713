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

package preflight

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/bootstrap"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/catalog"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instancetype"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/nodeclass"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
)

// Result is one check's outcome: passed when Err is nil. Detail says what was found; a
// Warning is a failure the operator works around.
type Result struct {
	Check   string
	Detail  string
	Err     error
	Warning bool
}

// Checker runs the checks.
type Checker struct {
	// Kube reads the KCNodeClasses and asks SubjectAccessReviews.
	Kube        client.Client
	Credentials kakaocloud.CredentialsProvider
	KakaoCloud  *kakaocloud.Client
	Catalog     *catalog.Catalog
	// NodeClasses reads what a KCNodeClass's status depends on, as the controller does.
	NodeClasses   nodeclass.Reader
	InstanceTypes *instancetype.Provider
	Keyring       signing.KeyringSource
	// ServiceAccount is the operator's, whose rights are checked.
	ServiceAccount client.ObjectKey
	// Secrets are the ones the operator reads (its credentials and signing keys): its Role
	// grants reading them by name, so each is asked about by name.
	Secrets     []client.ObjectKey
	ClusterName string
}

// New assembles the checks from a client of the cluster and one of KakaoCloud, as the operator
// with these settings would use them.
func New(kube client.Client, kc *kakaocloud.Client, credentials kakaocloud.CredentialsProvider, keyring signing.KeyringSource, serviceAccount client.ObjectKey, secrets []client.ObjectKey, clusterName string) *Checker {
	cat := catalog.New(kc, catalog.Options{ClusterName: clusterName})
	return &Checker{
		Kube: kube, Credentials: credentials, KakaoCloud: kc, Catalog: cat,
		NodeClasses:    nodeclass.Reader{Client: kube, Catalog: cat, Images: kc},
		InstanceTypes:  instancetype.NewProvider(cat, nil, nil),
		Keyring:        keyring,
		ServiceAccount: serviceAccount,
		Secrets:        secrets,
		ClusterName:    clusterName,
	}
}

// Run runs every check, in the order a failure should be fixed in: a later check often
// cannot pass before an earlier one does, and is then not run.
func (c *Checker) Run(ctx context.Context) []Result {
	var results []Result
	add := func(r Result) bool {
		results = append(results, r)
		return r.Err == nil || r.Warning
	}
	if add(c.credentials(ctx)) && add(c.token(ctx)) {
		add(c.endpoints(ctx))
		if add(c.cluster(ctx)) {
			results = append(results, c.nodeClasses(ctx)...)
		}
	}
	results = append(results, c.rbac(ctx)...)
	add(c.keyring(ctx))
	return results
}

// Failed reports whether any check failed (warnings aside).
func Failed(results []Result) bool {
	return slices.ContainsFunc(results, func(r Result) bool { return r.Err != nil && !r.Warning })
}

func (c *Checker) credentials(ctx context.Context) Result {
	creds, err := c.Credentials.Credentials(ctx)
	if err != nil {
		return Result{Check: "credentials", Err: fmt.Errorf("%w; create it with the keys access-key-id and secret-access-key of a KakaoCloud access key", err)}
	}
	return Result{Check: "credentials", Detail: "access key " + creds.AccessKeyID}
}

func (c *Checker) token(ctx context.Context) Result {
	err := c.KakaoCloud.Authenticate(ctx)
	switch {
	case errors.Is(err, kakaocloud.ErrUnauthorized):
		return Result{Check: "token", Err: fmt.Errorf("KakaoCloud refused the access key (%w): check the credentials Secret's access-key-id and secret-access-key, and that the key is not revoked or expired", err)}
	case err != nil:
		return Result{Check: "token", Err: fmt.Errorf("no token could be issued (%w): check that IAM is reachable from the cluster", err)}
	}
	return Result{Check: "token", Detail: "issued"}
}

func (c *Checker) endpoints(ctx context.Context) Result {
	endpoints, err := c.KakaoCloud.ResolveEndpoints(ctx)
	var parts []string
	for _, service := range slices.Sorted(maps.Keys(endpoints)) {
		parts = append(parts, service+"="+endpoints[service])
	}
	detail := strings.Join(parts, " ")
	if err != nil {
		return Result{Check: "endpoints", Detail: detail, Warning: true,
			Err: fmt.Errorf("the configuration service did not give the endpoints (%w); the hosts derived from the region are used: set --kakaocloud-endpoint for any that is wrong", err)}
	}
	return Result{Check: "endpoints", Detail: detail}
}

func (c *Checker) cluster(ctx context.Context) Result {
	cluster, err := c.Catalog.Cluster(ctx)
	switch {
	case errors.Is(err, kakaocloud.ErrNotFound):
		return Result{Check: "cluster", Err: fmt.Errorf("no Kubernetes Engine cluster named %q in the access key's project: set CLUSTER_NAME (--cluster-name) to the cluster's name", c.ClusterName)}
	case err != nil:
		return Result{Check: "cluster", Err: fmt.Errorf("reading Kubernetes Engine cluster %q: %w", c.ClusterName, err)}
	case cluster.Status.Phase != kakaocloud.ClusterPhaseProvisioned:
		return Result{Check: "cluster", Warning: true, Detail: "Kubernetes " + cluster.Version.PatchVersion,
			Err: fmt.Errorf("cluster %q is %s, not Provisioned: nodes launch once it is", c.ClusterName, cluster.Status.Phase)}
	}
	// The endpoint new nodes are told to join at, checked as the join script checks it.
	apiServer, err := bootstrap.APIServerURL(cluster.ControlPlaneEndpoint)
	if err != nil {
		return Result{Check: "cluster", Err: fmt.Errorf("cluster %q: no node can be told where to join: %w", c.ClusterName, err)}
	}
	return Result{Check: "cluster", Detail: fmt.Sprintf("%s, Kubernetes %s, %s, API server %s", cluster.Name, cluster.Version.PatchVersion,
		cluster.Status.Phase, apiServer)}
}

// nodeClasses checks each KCNodeClass as the controller would see it now.
func (c *Checker) nodeClasses(ctx context.Context) []Result {
	list := &kcv1.KCNodeClassList{}
	if err := c.Kube.List(ctx, list); err != nil {
		return []Result{{Check: "KCNodeClasses", Err: fmt.Errorf("listing KCNodeClasses: %w", err)}}
	}
	if len(list.Items) == 0 {
		return []Result{{Check: "KCNodeClasses", Warning: true, Err: errors.New("none yet: create one (config/samples) before the first NodePool, and run preflight again")}}
	}
	var results []Result
	for i := range list.Items {
		nodeClass := list.Items[i].DeepCopy()
		nodeClass.Status = nodeclass.Evaluate(nodeClass, c.NodeClasses.Observe(ctx, nodeClass)).Status
		check := "KCNodeClass " + nodeClass.Name
		var problems []string
		for _, condition := range kcv1.ReadyDependencies {
			if cond := meta.FindStatusCondition(nodeClass.Status.Conditions, condition); cond == nil || cond.Status != metav1.ConditionTrue {
				problems = append(problems, conditionProblem(condition, cond))
			}
		}
		if len(problems) > 0 {
			results = append(results, Result{Check: check, Err: errors.New(strings.Join(problems, "; "))})
			continue
		}
		results = append(results, Result{Check: check, Detail: c.describe(ctx, nodeClass)})
	}
	return results
}

func conditionProblem(condition string, cond *metav1.Condition) string {
	if cond == nil {
		return condition + " not computed"
	}
	return fmt.Sprintf("%s %s: %s", condition, cond.Reason, cond.Message)
}

// describe says what a ready KCNodeClass resolved to: its images, its subnets by zone, its
// security groups, and the flavors offered in each zone.
func (c *Checker) describe(ctx context.Context, nodeClass *kcv1.KCNodeClass) string {
	zones := map[string][]string{}
	for _, s := range nodeClass.Status.Subnets {
		zones[s.Zone] = append(zones[s.Zone], s.Name)
	}
	var groups []string
	for _, sg := range nodeClass.Status.SecurityGroups {
		groups = append(groups, sg.Name)
	}
	offered := map[string]int{}
	types, _ := c.InstanceTypes.List(ctx, nodeClass)
	for _, it := range types {
		for _, o := range it.Offerings {
			offered[o.Zone]++
		}
	}
	parts := []string{fmt.Sprintf("Kubernetes %s, %d images", nodeClass.Spec.Bootstrap.KubernetesVersion, len(nodeClass.Status.Images))}
	for _, zone := range slices.Sorted(maps.Keys(zones)) {
		parts = append(parts, fmt.Sprintf("%s: subnets %s, %d flavors", zone, strings.Join(zones[zone], ","), offered[zone]))
	}
	parts = append(parts, "security groups "+strings.Join(groups, ","))
	return strings.Join(parts, "; ")
}

// access is a right the operator, or a joining node, needs.
type access struct {
	what string
	attr authorizationv1.ResourceAttributes
	fix  string
}

// rbac asks the API server whether the operator's ServiceAccount may do what bootstrap and
// registration need, and whether a node holding one of its bootstrap tokens may ask for its
// certificate and have it approved.
func (c *Checker) rbac(ctx context.Context) []Result {
	operator := "system:serviceaccount:" + c.ServiceAccount.Namespace + ":" + c.ServiceAccount.Name
	operatorFix := "install the operator's RBAC (config/rbac and config/rbac-bootstrap, the Helm chart, or the OLM bundle) bound to ServiceAccount " + c.ServiceAccount.String()
	var results []Result
	// The rights in kube-system come apart from the rest on the OLM path (a bundle cannot
	// grant them in one namespace), so their fix names the manifest that grants them there.
	checks := []access{
		{"create bootstrap token Secrets in kube-system", authorizationv1.ResourceAttributes{Namespace: metav1.NamespaceSystem, Verb: "create", Resource: "secrets"}, bootstrap.TokenRightsFix},
		{"delete spent bootstrap tokens in kube-system", authorizationv1.ResourceAttributes{Namespace: metav1.NamespaceSystem, Verb: "deletecollection", Resource: "secrets"}, bootstrap.TokenRightsFix},
	}
	for _, secret := range c.Secrets {
		checks = append(checks, access{"read Secret " + secret.String(), authorizationv1.ResourceAttributes{Namespace: secret.Namespace, Verb: "get", Resource: "secrets", Name: secret.Name},
			operatorFix + " (the Helm chart's Role names the Secrets of its values, kustomize's and the bundle's the default names)"})
	}
	prices := client.ObjectKey{Namespace: c.ServiceAccount.Namespace, Name: instancetype.PriceOverridesConfigMapName}
	checks = append(checks, access{"read ConfigMap " + prices.String(), authorizationv1.ResourceAttributes{Namespace: prices.Namespace, Verb: "get", Resource: "configmaps", Name: prices.Name}, operatorFix})
	// whatif's aggregated API knows the API server by the front-proxy CA it publishes there
	// (Kubernetes' well-known name); OLM binds the Role itself for an APIService it installs.
	checks = append(checks, access{"read the API server's front-proxy CA (ConfigMap kube-system/extension-apiserver-authentication, for whatif)",
		authorizationv1.ResourceAttributes{Namespace: metav1.NamespaceSystem, Verb: "watch", Resource: "configmaps", Name: "extension-apiserver-authentication"},
		"bind the Role extension-apiserver-authentication-reader in kube-system to ServiceAccount " + c.ServiceAccount.String() + " (config/rbac-bootstrap and the Helm chart carry the RoleBinding; OLM makes it)"})
	checks = append(checks, access{"own nodes by their NodeClaim (nodeclaims/finalizers)", authorizationv1.ResourceAttributes{Verb: "update", Group: "karpenter.sh", Resource: "nodeclaims", Subresource: "finalizers"}, operatorFix})
	for _, a := range checks {
		results = append(results, c.review(ctx, "RBAC: the operator may "+a.what, authorizationv1.SubjectAccessReviewSpec{User: operator, ResourceAttributes: &a.attr}, a.fix))
	}
	node := authorizationv1.SubjectAccessReviewSpec{User: "system:bootstrap:preflight", Groups: []string{"system:bootstrappers", bootstrap.TokenGroup, "system:authenticated"}}
	bindFix := func(clusterRole string) string {
		return fmt.Sprintf("bind ClusterRole %s to Group %s (kubectl create clusterrolebinding karpenter-kakaocloud-%s --clusterrole=%s --group=%s)",
			clusterRole, bootstrap.TokenGroup, strings.ReplaceAll(strings.TrimPrefix(clusterRole, "system:"), ":", "-"), clusterRole, bootstrap.TokenGroup)
	}
	for _, a := range []access{
		{"ask for its certificate", authorizationv1.ResourceAttributes{Verb: "create", Group: certificatesv1.GroupName, Resource: "certificatesigningrequests"}, bindFix("system:node-bootstrapper")},
		{"have its certificate approved", authorizationv1.ResourceAttributes{Verb: "create", Group: certificatesv1.GroupName, Resource: "certificatesigningrequests", Subresource: "nodeclient"},
			bindFix("system:certificates.k8s.io:certificatesigningrequests:nodeclient")},
	} {
		spec := node
		spec.ResourceAttributes = &a.attr
		results = append(results, c.review(ctx, "RBAC: a joining node may "+a.what, spec, a.fix))
	}
	return results
}

func (c *Checker) review(ctx context.Context, check string, spec authorizationv1.SubjectAccessReviewSpec, fix string) Result {
	review := &authorizationv1.SubjectAccessReview{Spec: spec}
	if err := c.Kube.Create(ctx, review); err != nil {
		return Result{Check: check, Err: fmt.Errorf("asking the API server: %w", err)}
	}
	if !review.Status.Allowed {
		return Result{Check: check, Err: fmt.Errorf("denied: %s", fix)}
	}
	return Result{Check: check, Detail: "allowed"}
}

func (c *Checker) keyring(ctx context.Context) Result {
	ring, err := c.Keyring.Keyring(ctx)
	if err != nil {
		return Result{Check: "signing keys", Err: fmt.Errorf("%w; create it with activeKeyID and keys.<id> (32 random bytes or more each)", err)}
	}
	return Result{Check: "signing keys", Detail: "active key " + ring.ActiveKeyID()}
}

// Print writes the results, one line each, for a terminal.
func Print(results []Result) string {
	var b strings.Builder
	for _, r := range results {
		status := "ok  "
		switch {
		case r.Err != nil && r.Warning:
			status = "warn"
		case r.Err != nil:
			status = "FAIL"
		}
		fmt.Fprintf(&b, "%s  %s", status, r.Check)
		if r.Detail != "" {
			fmt.Fprintf(&b, ": %s", r.Detail)
		}
		if r.Err != nil {
			fmt.Fprintf(&b, "\n      %v", r.Err)
		}
		b.WriteString("\n")
	}
	return b.String()
}
