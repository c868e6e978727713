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
	"archive/tar"
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/mutate"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/hack/packaging/image"
)

const (
	packageName = "karpenter-provider-kakaocloud"
	channelName = "candidate"
	// unpackLabel marks the Jobs OLM's catalog operator runs to unpack a bundle image.
	unpackLabel = "operatorframework.io/bundle-unpack-ref"
)

// TestInstallOLM installs the bundle the way OperatorHub does, with OLM's own operators: a
// file-based catalog rendered from the bundle image by opm and served by `opm serve`, a
// CatalogSource at its address, an OperatorGroup and a Subscription. OLM resolves the
// Subscription, unpacks the bundle, creates the CRDs, RBAC, Deployment, Services, serving
// certificate, webhook configurations and whatif's APIService with its bindings, and, once the
// operator runs as the pods OLM made (see the stand-in kubelet) and the APIService is
// Available, moves the CSV to Succeeded. The operator must reconcile a KCNodeClass and a
// NodePool to Ready and answer kubectl karpenter whatif.
//
// The catalog's channel also holds a next release (the same bundle as version 0.1.1,
// replacing 0.1.0). While the KCNodeClass is older than the next release's minimum, the
// operator says Upgradeable=False on its OperatorCondition and OLM holds the approved upgrade;
// once the KCNodeClass moves, the operator says True and OLM upgrades. Uninstalling follows
// the documents: NodePools and KCNodeClasses, the Subscription and CSV, the CRDs.
//
// One step is stood in for: OLM unpacks a bundle with a Job whose pod copies the bundle
// image's files into a volume and runs `opm alpha bundle extract` on them. kwok runs no
// container, so this test does it: it unpacks the bundle image (built here as `make
// bundle-image` builds it) and runs that same opm command, with the Job's ServiceAccount.
func TestInstallOLM(t *testing.T) {
	c := newInstallCluster(t)
	olmNamespace, opm := c.env["OLM_NAMESPACE"], c.env["OPM"]
	if olmNamespace == "" || opm == "" {
		t.Fatal("the local cluster runs no OLM: hack/local-up needs LOCAL_CLUSTER_OLM=1")
	}
	ctx := t.Context()
	work := t.TempDir()
	c.systemNode(t)
	c.userSecrets(t)

	// The bundle image and what a registry client unpacks from it; and the next release.
	version := makefileVariable(t, "VERSION")
	bundleImage, err := image.Bundle("../../bundle", "../../bundle/metadata/annotations.yaml")
	if err != nil {
		t.Fatalf("building the bundle image: %v", err)
	}
	current := catalogBundle{ref: "karpenter-provider-kakaocloud-bundle:v" + version, dir: filepath.Join(work, "bundle-"+version)}
	unpackImage(t, mutate.Extract(bundleImage), current.dir)
	next := nextRelease(t, current, "0.1.1", filepath.Join(work, "bundle-0.1.1"))

	// A file-based catalog: the bundles as opm renders them, their package and channel.
	catalogDir := fileBasedCatalog(t, opm, []*catalogBundle{&current, &next}, filepath.Join(work, "catalog"))
	runOrFail(t, opm, "validate", catalogDir)
	address := serveCatalog(t, opm, catalogDir, work)

	// Every bundle-unpack Job OLM starts gets its pod's work done.
	unpacked := c.standInForUnpackJobs(t, opm, olmNamespace, map[string]string{current.ref: current.dir, next.ref: next.dir})

	catalogSource := &operatorsv1alpha1.CatalogSource{
		ObjectMeta: metav1.ObjectMeta{Name: packageName, Namespace: olmNamespace},
		Spec: operatorsv1alpha1.CatalogSourceSpec{
			SourceType: operatorsv1alpha1.SourceTypeGrpc, Address: address,
			DisplayName: "Karpenter for KakaoCloud (local catalog)", Publisher: "karpenter-provider-kakaocloud",
		},
	}
	operatorGroup := &operatorsv1.OperatorGroup{ObjectMeta: metav1.ObjectMeta{Name: "karpenter-kakaocloud", Namespace: installNamespace}}
	subscription := &operatorsv1alpha1.Subscription{
		ObjectMeta: metav1.ObjectMeta{Name: packageName, Namespace: installNamespace},
		Spec: &operatorsv1alpha1.SubscriptionSpec{
			CatalogSource: packageName, CatalogSourceNamespace: olmNamespace,
			Package: packageName, Channel: channelName, StartingCSV: current.csv,
			// Each InstallPlan is approved below, so that the upgrade is asked for only once
			// the operator has had its say.
			InstallPlanApproval: operatorsv1alpha1.ApprovalManual,
			// What a user sets on the Subscription: the cluster, here the emulator's
			// endpoints, and a next-release minimum that the KCNodeClass below is under.
			Config: &operatorsv1alpha1.SubscriptionConfig{Env: []corev1.EnvVar{
				{Name: "CLUSTER_NAME", Value: c.env["CLUSTER_NAME"]},
				{Name: "KAKAOCLOUD_ENDPOINTS", Value: c.emulatorEndpoints()},
				{Name: "NEXT_RELEASE_MIN_KUBERNETES_VERSION", Value: "1.36"},
			}},
		},
	}
	for _, object := range []client.Object{catalogSource, operatorGroup, subscription} {
		if err := c.kube.Create(ctx, object); err != nil {
			t.Fatalf("creating %T %s: %v", object, object.GetName(), err)
		}
	}
	eventually(t, time.Minute, "the CatalogSource connected", func() (bool, string) {
		if err := c.kube.Get(ctx, client.ObjectKeyFromObject(catalogSource), catalogSource); err != nil {
			return false, err.Error()
		}
		state := catalogSource.Status.GRPCConnectionState
		return state != nil && state.LastObservedState == "READY", fmt.Sprintf("%+v", state)
	})

	c.approveInstallPlan(t, current.csv)
	// OLM holds the CSV in Installing until whatif's APIService is Available, that is until the
	// operator answers behind it: its pods run as soon as OLM has made the Deployment.
	deployment := &appsv1.Deployment{}
	eventually(t, 2*time.Minute, "OLM made the Deployment", func() (bool, string) {
		err := c.kube.Get(ctx, client.ObjectKey{Namespace: installNamespace, Name: "karpenter-kakaocloud-controller-manager"}, deployment)
		return err == nil, fmt.Sprint(err)
	})
	selector, err := metav1.LabelSelectorAsSelector(deployment.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	kubelet := c.runPods(t, selector)
	csv := c.csvSucceeded(t, current.csv)
	c.expectOLMMadeTheInstall(t, csv)
	c.applyKubeSystemStep(t)
	c.expectOperatorSecretRights(t, "karpenter-kakaocloud-controller-manager", "karpenter-kakaocloud-credentials", "karpenter-kakaocloud-signing-keys")

	removeNodeClassAndPool := c.nodeClassAndPool(t, "olm", "1.35")
	c.askWhatIf(t, "karpenter-kakaocloud-plugin-reader-role", "olm")
	t.Logf("pods run by the stand-in kubelet: %s", strings.Join(kubelet.podsStarted(), ", "))

	// Below the next release's minimum (1.36, from the Subscription) the KCNodeClass holds
	// the upgrade: Upgradeable=False names it, OLM copies it to status, and the approved
	// upgrade's CSV waits in Pending.
	c.expectUpgradeable(t, current.csv, metav1.ConditionFalse, "KubernetesVersionUnsupportedByNextRelease", "olm (1.35)")
	c.approveInstallPlan(t, next.csv)
	held := &operatorsv1alpha1.ClusterServiceVersion{}
	eventually(t, 2*time.Minute, "OLM holds the upgrade to "+next.csv, func() (bool, string) {
		if err := c.kube.Get(ctx, client.ObjectKey{Namespace: installNamespace, Name: next.csv}, held); err != nil {
			return false, err.Error()
		}
		return held.Status.Phase == operatorsv1alpha1.CSVPhasePending && held.Status.Reason == operatorsv1alpha1.CSVReasonOperatorConditionNotUpgradeable,
			fmt.Sprintf("%s (%s): %s", held.Status.Phase, held.Status.Reason, held.Status.Message)
	})
	t.Logf("upgrade held: CSV %s is %s (%s): %s", next.csv, held.Status.Phase, held.Status.Reason, held.Status.Message)
	// OLM marks the running CSV Replacing, but its Deployment stays the one it made. The
	// mark comes on the running CSV's own next sync, which may follow the held CSV's.
	eventually(t, time.Minute, "while the upgrade is held, OLM marks CSV "+current.csv+" Replacing", func() (bool, string) {
		if err := c.kube.Get(ctx, client.ObjectKeyFromObject(csv), csv); err != nil {
			return false, err.Error()
		}
		return csv.Status.Phase == operatorsv1alpha1.CSVPhaseReplacing, fmt.Sprintf("%s (%s)", csv.Status.Phase, csv.Status.Reason)
	})
	if err := c.kube.Get(ctx, client.ObjectKeyFromObject(deployment), deployment); err != nil {
		t.Fatal(err)
	}
	if env := containerEnv(deployment); env["OPERATOR_CONDITION_NAME"] != current.csv {
		t.Errorf("while the upgrade is held, the Deployment runs for %q, want %s", env["OPERATOR_CONDITION_NAME"], current.csv)
	}

	// At 1.36 the operator says True, and OLM goes on: the next release replaces this one.
	nodeClass := &unstructured.Unstructured{}
	nodeClass.SetAPIVersion("karpenter.kakaocloud.com/v1")
	nodeClass.SetKind("KCNodeClass")
	nodeClass.SetName("olm")
	if err := c.kube.Patch(ctx, nodeClass, client.RawPatch(client.Merge.Type(), []byte(`{"spec":{"bootstrap":{"kubernetesVersion":"1.36"}}}`))); err != nil {
		t.Fatalf("moving KCNodeClass olm to 1.36: %v", err)
	}
	c.expectUpgradeable(t, current.csv, metav1.ConditionTrue, "Upgradeable", "1.36 or later")
	upgraded := c.csvSucceeded(t, next.csv)
	eventually(t, 2*time.Minute, "OLM removed the replaced CSV "+current.csv, func() (bool, string) {
		err := c.kube.Get(ctx, client.ObjectKeyFromObject(csv), &operatorsv1alpha1.ClusterServiceVersion{})
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
	// The upgraded operator, in the pods OLM rolled, keeps its own OperatorCondition and the
	// KCNodeClass Ready.
	c.expectUpgradeable(t, next.csv, metav1.ConditionTrue, "Upgradeable", "1.36 or later")
	c.nodeClassAndPool(t, "olm-upgraded", "1.36")()
	t.Logf("pods run by the stand-in kubelet: %s", strings.Join(kubelet.podsStarted(), ", "))
	t.Logf("stood in for the bundle-unpack Jobs: %s", strings.Join(unpacked(), ", "))
	if len(unpacked()) == 0 {
		t.Error("OLM installed the bundles without unpacking them: the stand-in was not needed, drop it")
	}

	// Uninstall, in the documents' order.
	removeNodeClassAndPool()
	for _, object := range []client.Object{subscription, upgraded} {
		if err := c.kube.Delete(ctx, object); err != nil && !apierrors.IsNotFound(err) {
			t.Fatalf("deleting %s: %v", object.GetName(), err)
		}
	}
	// An APIService left behind without its operator would hold every namespace's deletion.
	eventually(t, 2*time.Minute, "OLM removed the Deployment, the webhook configurations and the APIService", func() (bool, string) {
		deploymentErr := c.kube.Get(ctx, client.ObjectKeyFromObject(deployment), &appsv1.Deployment{})
		webhooks := &admissionregistrationv1.ValidatingWebhookConfigurationList{}
		if err := c.kube.List(ctx, webhooks, client.HasLabels{"olm.owner"}); err != nil {
			return false, err.Error()
		}
		apiService := &unstructured.Unstructured{}
		apiService.SetGroupVersionKind(apiServicesResource.GroupVersion().WithKind("APIService"))
		apiServiceErr := c.kube.Get(ctx, client.ObjectKey{Name: explainAPIService}, apiService)
		return apierrors.IsNotFound(deploymentErr) && len(webhooks.Items) == 0 && apierrors.IsNotFound(apiServiceErr),
			fmt.Sprintf("deployment: %v, %d webhook configurations, APIService: %v", deploymentErr, len(webhooks.Items), apiServiceErr)
	})
	for _, object := range []client.Object{operatorGroup, catalogSource} {
		if err := c.kube.Delete(ctx, object); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting %s: %v", object.GetName(), err)
		}
	}
	c.deleteCRDs(t)
}

// approveInstallPlan approves, as an administrator would, the InstallPlan of the Subscription
// once it installs csv and asks for approval, and waits until OLM acts on the approval. OLM
// may replace a plan while resolving, so the plan approved is the one the Subscription names.
func (c *installCluster) approveInstallPlan(t *testing.T, csv string) {
	t.Helper()
	ctx := t.Context()
	eventually(t, 2*time.Minute, "the InstallPlan for "+csv+" approved and carried out", func() (bool, string) {
		subscription := &operatorsv1alpha1.Subscription{}
		if err := c.kube.Get(ctx, client.ObjectKey{Namespace: installNamespace, Name: packageName}, subscription); err != nil {
			return false, err.Error()
		}
		ref := subscription.Status.InstallPlanRef
		if ref == nil {
			return false, "the Subscription names no InstallPlan yet"
		}
		plan := &operatorsv1alpha1.InstallPlan{}
		if err := c.kube.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, plan); err != nil {
			return false, err.Error()
		}
		state := fmt.Sprintf("%s %v %s approved=%t", plan.Name, plan.Spec.ClusterServiceVersionNames, plan.Status.Phase, plan.Spec.Approved)
		if !slices.Contains(plan.Spec.ClusterServiceVersionNames, csv) {
			return false, state
		}
		switch {
		case plan.Status.Phase == operatorsv1alpha1.InstallPlanPhaseRequiresApproval && !plan.Spec.Approved:
			plan.Spec.Approved = true
			if err := c.kube.Update(ctx, plan); err != nil {
				return false, err.Error()
			}
			return false, state + ", approving"
		case plan.Spec.Approved && (plan.Status.Phase == operatorsv1alpha1.InstallPlanPhaseInstalling || plan.Status.Phase == operatorsv1alpha1.InstallPlanPhaseComplete):
			return true, state
		}
		return false, state
	})
}

// csvSucceeded waits until OLM moves csv to Succeeded and its InstallPlan to Complete, and
// logs the phases OLM recorded on the way.
func (c *installCluster) csvSucceeded(t *testing.T, name string) *operatorsv1alpha1.ClusterServiceVersion {
	t.Helper()
	ctx := t.Context()
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	eventually(t, 4*time.Minute, "CSV "+name+" Succeeded", func() (bool, string) {
		if err := c.kube.Get(ctx, client.ObjectKey{Namespace: installNamespace, Name: name}, csv); err != nil {
			return false, err.Error()
		}
		return csv.Status.Phase == operatorsv1alpha1.CSVPhaseSucceeded, fmt.Sprintf("%s (%s): %s", csv.Status.Phase, csv.Status.Reason, csv.Status.Message)
	})
	var phases []string
	for _, condition := range csv.Status.Conditions {
		phases = append(phases, fmt.Sprintf("%s (%s)", condition.Phase, condition.Reason))
	}
	t.Logf("CSV %s phases seen: %s", name, strings.Join(phases, " → "))
	eventually(t, time.Minute, "the InstallPlan of "+name+" Complete", func() (bool, string) {
		plans := &operatorsv1alpha1.InstallPlanList{}
		if err := c.kube.List(ctx, plans, client.InNamespace(installNamespace)); err != nil {
			return false, err.Error()
		}
		for _, plan := range plans.Items {
			if slices.Contains(plan.Spec.ClusterServiceVersionNames, name) {
				return plan.Status.Phase == operatorsv1alpha1.InstallPlanPhaseComplete, string(plan.Status.Phase)
			}
		}
		return false, "no InstallPlan"
	})
	return csv
}

// expectUpgradeable waits until the operator's OperatorCondition (named for csv) says
// Upgradeable with this status and reason, and OLM has copied it to the status.
func (c *installCluster) expectUpgradeable(t *testing.T, csv string, want metav1.ConditionStatus, reason, mentions string) {
	t.Helper()
	operatorCondition := &operatorsv2.OperatorCondition{}
	eventually(t, time.Minute, fmt.Sprintf("OperatorCondition %s Upgradeable=%s (%s)", csv, want, reason), func() (bool, string) {
		if err := c.kube.Get(t.Context(), client.ObjectKey{Namespace: installNamespace, Name: csv}, operatorCondition); err != nil {
			return false, err.Error()
		}
		spec := meta.FindStatusCondition(operatorCondition.Spec.Conditions, operatorsv2.Upgradeable)
		status := meta.FindStatusCondition(operatorCondition.Status.Conditions, operatorsv2.Upgradeable)
		ok := spec != nil && spec.Status == want && spec.Reason == reason && strings.Contains(spec.Message, mentions) &&
			status != nil && status.Status == want && status.Message == spec.Message
		return ok, fmt.Sprintf("spec %+v, status %+v", spec, status)
	})
	t.Logf("%s: Upgradeable=%s: %s", csv, want, meta.FindStatusCondition(operatorCondition.Spec.Conditions, operatorsv2.Upgradeable).Message)
}

// catalogBundle is a bundle in the catalog: its image reference, its files, its CSV's name.
type catalogBundle struct {
	ref, dir, csv, replaces string
}

// nextRelease is the bundle as its next version would ship it: the same files, the CSV
// renamed and versioned, replacing this one.
func nextRelease(t *testing.T, current catalogBundle, version, dir string) catalogBundle {
	t.Helper()
	manifests := filepath.Join(current.dir, "manifests")
	entries, err := os.ReadDir(manifests)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	var currentCSV string
	for _, entry := range entries {
		data, err := os.ReadFile(filepath.Join(manifests, entry.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(entry.Name(), ".clusterserviceversion.yaml") {
			var csv map[string]any
			if err := yaml.Unmarshal(data, &csv); err != nil {
				t.Fatal(err)
			}
			metadata := csv["metadata"].(map[string]any)
			spec := csv["spec"].(map[string]any)
			currentCSV = metadata["name"].(string)
			metadata["name"] = packageName + ".v" + version
			spec["version"] = version
			spec["replaces"] = currentCSV
			if data, err = yaml.Marshal(csv); err != nil {
				t.Fatal(err)
			}
		}
		files[entry.Name()] = data
	}
	if err := writeFiles(filepath.Join(dir, "manifests"), files); err != nil {
		t.Fatal(err)
	}
	metadata, err := os.ReadFile(filepath.Join(current.dir, "metadata", "annotations.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := writeFiles(filepath.Join(dir, "metadata"), map[string][]byte{"annotations.yaml": metadata}); err != nil {
		t.Fatal(err)
	}
	return catalogBundle{ref: "karpenter-provider-kakaocloud-bundle:v" + version, dir: dir, replaces: currentCSV}
}

// applyKubeSystemStep takes the step docs/install.md requires of a cluster admin with an OLM
// install, config/olm-kube-system, after checking that the bundle alone gave the operator no
// right on Secrets in kube-system; and then that it has the rights it needs there.
func (c *installCluster) applyKubeSystemStep(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	operator := "system:serviceaccount:" + installNamespace + ":karpenter-kakaocloud-controller-manager"
	may := func(verb string) bool {
		t.Helper()
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: operator,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "kube-system", Verb: verb, Resource: "secrets"}}}
		if err := c.kube.Create(ctx, review); err != nil {
			t.Fatal(err)
		}
		return review.Status.Allowed
	}
	if may("create") || may("deletecollection") {
		t.Fatal("the bundle alone lets the operator write Secrets in kube-system")
	}
	for _, object := range renderKustomization(t, olmKubeSystem).objects {
		if err := c.kube.Create(ctx, object); err != nil {
			t.Fatalf("applying %s: %s %s: %v", olmKubeSystem, object.GetKind(), object.GetName(), err)
		}
	}
	if !may("create") || !may("deletecollection") {
		t.Fatalf("after %s the operator may not create and delete bootstrap tokens in kube-system", olmKubeSystem)
	}
}

// expectOLMMadeTheInstall checks what OLM created for the CSV: the CRDs (an InstallPlan step
// each), the ServiceAccount and roles bound to it, the webhook configurations and whatif's
// APIService, whose CA is OLM's own and signed the serving certificate OLM put in the Secret of
// their Service, and the binding in kube-system that lets the operator read the API server's
// front-proxy CA.
func (c *installCluster) expectOLMMadeTheInstall(t *testing.T, csv *operatorsv1alpha1.ClusterServiceVersion) {
	t.Helper()
	ctx := t.Context()
	plans := &operatorsv1alpha1.InstallPlanList{}
	if err := c.kube.List(ctx, plans, client.InNamespace(installNamespace)); err != nil {
		t.Fatal(err)
	}
	created := map[string]bool{}
	for _, plan := range plans.Items {
		if !slices.Contains(plan.Spec.ClusterServiceVersionNames, csv.Name) {
			continue
		}
		if plan.Status.Phase != operatorsv1alpha1.InstallPlanPhaseComplete {
			t.Errorf("InstallPlan %s is %s, want Complete", plan.Name, plan.Status.Phase)
		}
		for _, step := range plan.Status.Plan {
			if step.Resource.Kind == "CustomResourceDefinition" && (step.Status == operatorsv1alpha1.StepStatusCreated || step.Status == operatorsv1alpha1.StepStatusPresent) {
				created[step.Resource.Name] = true
			}
		}
	}
	for _, crd := range []string{"kcnodeclasses.karpenter.kakaocloud.com", "nodeclaims.karpenter.sh", "nodepools.karpenter.sh"} {
		if !created[crd] {
			t.Errorf("no InstallPlan step created CRD %s (steps created %v)", crd, created)
		}
		if err := c.kube.Get(ctx, client.ObjectKey{Name: crd}, &apiextensionsv1.CustomResourceDefinition{}); err != nil {
			t.Errorf("CRD %s: %v", crd, err)
		}
	}
	for _, requirement := range csv.Status.RequirementStatus {
		want := operatorsv1alpha1.RequirementStatusReasonPresent
		// OLM meets an owned APIService's requirement with the CSV's Deployment that serves it.
		if requirement.Kind == "APIService" {
			want = "DeploymentFound"
		}
		if requirement.Status != want {
			t.Errorf("CSV requirement %s %s is %s, want %s: %s", requirement.Kind, requirement.Name, requirement.Status, want, requirement.Message)
		}
	}

	owned := client.MatchingLabels{"olm.owner": csv.Name, "olm.owner.namespace": installNamespace}
	serviceAccount := &corev1.ServiceAccount{}
	if err := c.kube.Get(ctx, client.ObjectKey{Namespace: installNamespace, Name: "karpenter-kakaocloud-controller-manager"}, serviceAccount); err != nil {
		t.Fatalf("the ServiceAccount OLM made: %v", err)
	}
	clusterRoleBindings := &rbacv1.ClusterRoleBindingList{}
	if err := c.kube.List(ctx, clusterRoleBindings, owned); err != nil {
		t.Fatal(err)
	}
	boundToServiceAccount := 0
	for _, binding := range clusterRoleBindings.Items {
		for _, subject := range binding.Subjects {
			if subject.Kind == "ServiceAccount" && subject.Name == serviceAccount.Name && subject.Namespace == installNamespace {
				boundToServiceAccount++
			}
		}
	}
	if boundToServiceAccount == 0 {
		t.Errorf("no ClusterRoleBinding OLM owns binds ServiceAccount %s", serviceAccount.Name)
	}

	webhooks := &admissionregistrationv1.ValidatingWebhookConfigurationList{}
	if err := c.kube.List(ctx, webhooks, client.MatchingLabels{"olm.owner": csv.Name}); err != nil {
		t.Fatal(err)
	}
	if len(webhooks.Items) != len(csv.Spec.WebhookDefinitions) {
		t.Errorf("%d webhook configurations for %d webhook definitions", len(webhooks.Items), len(csv.Spec.WebhookDefinitions))
	}
	secret := &corev1.Secret{}
	if err := c.kube.Get(ctx, client.ObjectKey{Namespace: installNamespace, Name: "karpenter-kakaocloud-controller-manager-service-cert"}, secret); err != nil {
		t.Fatalf("the webhook certificate Secret OLM made: %v", err)
	}
	serving := parseCertificate(t, secret.Data["tls.crt"])
	localCA, err := os.ReadFile(c.env["APISERVER_CA"])
	if err != nil {
		t.Fatal(err)
	}
	// expectServedByOLM checks that what is called at a Service trusts OLM's CA, which signed
	// the serving certificate for that Service.
	expectServedByOLM := func(what, service string, caBundle []byte) {
		if bytes.Equal(caBundle, localCA) {
			t.Errorf("%s trusts the local cluster's CA, not OLM's", what)
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(caBundle) {
			t.Errorf("%s has no CA bundle", what)
			return
		}
		if _, err := serving.Verify(x509.VerifyOptions{Roots: roots, DNSName: fmt.Sprintf("%s.%s.svc", service, installNamespace)}); err != nil {
			t.Errorf("%s: OLM's serving certificate does not verify against its CA bundle: %v", what, err)
		}
	}
	var webhookService string
	for _, configuration := range webhooks.Items {
		for _, webhook := range configuration.Webhooks {
			if webhook.ClientConfig.Service == nil {
				t.Errorf("webhook %s is not called through a Service", webhook.Name)
				continue
			}
			webhookService = webhook.ClientConfig.Service.Name
			expectServedByOLM("webhook "+webhook.Name, webhookService, webhook.ClientConfig.CABundle)
		}
	}

	// whatif's APIService, served as the webhooks are.
	object := &unstructured.Unstructured{}
	object.SetGroupVersionKind(apiServicesResource.GroupVersion().WithKind("APIService"))
	if err := c.kube.Get(ctx, client.ObjectKey{Name: explainAPIService}, object); err != nil {
		t.Fatalf("the APIService OLM made: %v", err)
	}
	var apiService registeredAPIService
	fromUnstructured(t, object, &apiService)
	if owner := apiService.Metadata.Labels["olm.owner"]; owner != csv.Name {
		t.Errorf("APIService %s is owned by %q, want CSV %s", explainAPIService, owner, csv.Name)
	}
	if reference := apiService.Spec.Service; reference.Name != webhookService || reference.Namespace != installNamespace {
		t.Errorf("APIService %s is served by Service %s/%s, the webhooks by %s/%s", explainAPIService, reference.Namespace, reference.Name, installNamespace, webhookService)
	}
	expectServedByOLM("APIService "+explainAPIService, apiService.Spec.Service.Name, apiService.Spec.CABundle)
	bindings := &rbacv1.RoleBindingList{}
	if err := c.kube.List(ctx, bindings, client.InNamespace(tokenNamespace)); err != nil {
		t.Fatal(err)
	}
	readers := 0
	for _, binding := range bindings.Items {
		if binding.RoleRef.Kind == "Role" && binding.RoleRef.Name == authReaderRole &&
			slices.Contains(binding.Subjects, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: serviceAccount.Name, Namespace: installNamespace}) {
			readers++
		}
	}
	if readers != 1 {
		t.Errorf("%d RoleBindings in kube-system bind ServiceAccount %s to Role %s, want the one OLM makes", readers, serviceAccount.Name, authReaderRole)
	}
}

func parseCertificate(t *testing.T, data []byte) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatal("no PEM certificate")
	}
	certificate, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return certificate
}

// unpackImage writes an image's filesystem (its flattened layers) under dir.
func unpackImage(t *testing.T, layers io.ReadCloser, dir string) {
	t.Helper()
	defer func() { _ = layers.Close() }()
	reader := tar.NewReader(layers)
	for {
		header, err := reader.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, filepath.Clean("/"+header.Name))
		switch header.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(path, 0o755)
		case tar.TypeReg:
			if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
				var data []byte
				if data, err = io.ReadAll(reader); err == nil {
					err = os.WriteFile(path, data, 0o644)
				}
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// fileBasedCatalog writes a catalog of one package whose channel holds the bundles in order,
// each as `opm render` renders it (with its image reference, which a directory lacks), and
// records each bundle's CSV name.
func fileBasedCatalog(t *testing.T, opm string, bundles []*catalogBundle, dir string) string {
	t.Helper()
	blobs := []any{map[string]any{"schema": "olm.package", "name": packageName, "defaultChannel": channelName}}
	var entries []any
	for _, bundle := range bundles {
		var rendered map[string]any
		if err := json.NewDecoder(bytes.NewReader(runOrFail(t, opm, "render", bundle.dir, "--output", "json"))).Decode(&rendered); err != nil {
			t.Fatalf("reading opm render's output: %v", err)
		}
		if rendered["schema"] != "olm.bundle" || rendered["package"] != packageName {
			t.Fatalf("opm render gave %v/%v, want an olm.bundle of %s", rendered["schema"], rendered["package"], packageName)
		}
		rendered["image"] = bundle.ref
		bundle.csv, _ = rendered["name"].(string)
		entry := map[string]any{"name": bundle.csv}
		if bundle.replaces != "" {
			entry["replaces"] = bundle.replaces
		}
		entries = append(entries, entry)
		blobs = append(blobs, rendered)
	}
	blobs = append(blobs, map[string]any{"schema": "olm.channel", "package": packageName, "name": channelName, "entries": entries})
	var out bytes.Buffer
	for _, blob := range blobs {
		data, err := json.Marshal(blob)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(data, '\n'))
	}
	if err := writeFiles(filepath.Join(dir, packageName), map[string][]byte{"catalog.json": out.Bytes()}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// serveCatalog runs `opm serve` on the catalog and returns its loopback address once it
// accepts connections.
func serveCatalog(t *testing.T, opm, catalogDir, work string) string {
	t.Helper()
	address, err := freeLoopbackAddress()
	if err != nil {
		t.Fatal(err)
	}
	pprof, err := freeLoopbackAddress()
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(address)
	logFile, err := os.Create(filepath.Join(work, "opm-serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	serve := exec.Command(opm, "serve", catalogDir, "--port", port, "--pprof-addr", pprof,
		"--cache-dir", filepath.Join(work, "opm-cache"), "--cache-enforce-integrity=false", "--termination-log", filepath.Join(work, "opm-termination.log"))
	serve.Stdout, serve.Stderr = logFile, logFile
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = serve.Process.Signal(syscall.SIGTERM)
		_ = serve.Wait()
		_ = logFile.Close()
	})
	eventually(t, time.Minute, "opm serve accepts connections on "+address, func() (bool, string) {
		connection, err := net.DialTimeout("tcp", address, time.Second)
		if err != nil {
			return false, err.Error()
		}
		_ = connection.Close()
		return true, ""
	})
	return address
}

// standInForUnpackJobs does the work of every bundle-unpack Job OLM starts: the Job's pod
// would pull the bundle image into a volume and run opm on it; here the unpacked image is
// the directory bundles gives for the image, and opm runs on this machine with the same arguments and the token of the Job's
// ServiceAccount. It returns the Jobs done so far.
func (c *installCluster) standInForUnpackJobs(t *testing.T, opm, namespace string, bundles map[string]string) func() []string {
	var mu sync.Mutex
	var done []string
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		_ = wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			jobs := &batchv1.JobList{}
			if err := c.kube.List(ctx, jobs, client.InNamespace(namespace), client.HasLabels{unpackLabel}); err != nil {
				return false, nil
			}
			for _, job := range jobs.Items {
				mu.Lock()
				seen := slices.Contains(done, job.Name)
				mu.Unlock()
				if seen {
					continue
				}
				if err := c.unpack(ctx, opm, &job, bundles); err != nil {
					t.Errorf("standing in for unpack Job %s: %v", job.Name, err)
				}
				mu.Lock()
				done = append(done, job.Name)
				mu.Unlock()
			}
			return false, nil
		})
	}()
	t.Cleanup(func() { cancel(); <-stopped })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(done)
	}
}

func (c *installCluster) unpack(ctx context.Context, opm string, job *batchv1.Job, bundles map[string]string) error {
	pod := job.Spec.Template.Spec
	var extract *corev1.Container
	for i := range pod.Containers {
		if pod.Containers[i].Name == "extract" {
			extract = &pod.Containers[i]
		}
	}
	if extract == nil || len(extract.Command) < 4 || !slices.Equal(extract.Command[:4], []string{"opm", "alpha", "bundle", "extract"}) {
		return fmt.Errorf("the Job runs no `opm alpha bundle extract` container: %+v", pod.Containers)
	}
	var bundleDir string
	for _, variable := range extract.Env {
		if variable.Name == "CONTAINER_IMAGE" {
			bundleDir = bundles[variable.Value]
			if bundleDir == "" {
				return fmt.Errorf("the Job unpacks image %s, which is none of the catalog's bundles", variable.Value)
			}
		}
	}
	if bundleDir == "" {
		return fmt.Errorf("the Job names no CONTAINER_IMAGE")
	}
	args := slices.Clone(extract.Command[1:])
	for i := range args {
		// The volume the pull init container fills with the image's files.
		if args[i] == "/bundle/" || args[i] == "/bundle" {
			args[i] = bundleDir + "/"
		}
	}
	serviceAccount := pod.ServiceAccountName
	if serviceAccount == "" {
		serviceAccount = "default"
	}
	token, err := c.clients.CoreV1().ServiceAccounts(job.Namespace).CreateToken(ctx, serviceAccount, &authenticationTokenRequest, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("a token for ServiceAccount %s: %w", serviceAccount, err)
	}
	kubeconfig := filepath.Join(c.dir, "pods", job.Name+".kubeconfig")
	if err := writeFiles(filepath.Dir(kubeconfig), map[string][]byte{filepath.Base(kubeconfig): tokenKubeconfig(c.env["APISERVER"], c.env["APISERVER_CA"], token.Status.Token)}); err != nil {
		return err
	}
	output, err := exec.CommandContext(ctx, opm, append(args, "--kubeconfig", kubeconfig)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("opm %s: %w\n%s", strings.Join(args, " "), err, output)
	}
	return nil
}

func tokenKubeconfig(server, caFile, token string) []byte {
	return fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: %s
    certificate-authority: %s
contexts:
- name: pod
  context:
    cluster: local
    user: pod
current-context: pod
users:
- name: pod
  user:
    token: %s
`, server, caFile, token)
}

func runOrFail(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	command := exec.Command(name, args...)
	command.Stdout, command.Stderr = &stdout, &stderr
	if err := command.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}
