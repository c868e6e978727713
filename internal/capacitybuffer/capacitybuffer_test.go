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

package capacitybuffer

import (
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	autoscalingv1beta1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/autoscaling/v1beta1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

func template(cpu string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "buffer"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "pause", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("512Mi")},
		}}}},
	}
}

func TestReplicas(t *testing.T) {
	workload := &autoscalingv1beta1.ScalableRef{Kind: autoscalingv1beta1.KindDeployment, Name: "app"}
	for _, tc := range []struct {
		name     string
		spec     autoscalingv1beta1.CapacityBufferSpec
		workload int32
		want     int32
	}{
		{name: "replicas", spec: autoscalingv1beta1.CapacityBufferSpec{Replicas: new(int32(3))}, want: 3},
		{name: "20% of 10, rounded up", spec: autoscalingv1beta1.CapacityBufferSpec{ScalableRef: workload, Percentage: new(int32(20))}, workload: 10, want: 2},
		{name: "1% of 10 is at least 1", spec: autoscalingv1beta1.CapacityBufferSpec{ScalableRef: workload, Percentage: new(int32(1))}, workload: 10, want: 1},
		{name: "0% of 10 is none", spec: autoscalingv1beta1.CapacityBufferSpec{ScalableRef: workload, Percentage: new(int32(0))}, workload: 10, want: 0},
		{name: "the larger of replicas and the percentage", spec: autoscalingv1beta1.CapacityBufferSpec{ScalableRef: workload, Percentage: new(int32(50)), Replicas: new(int32(2))}, workload: 10, want: 5},
		{name: "limits alone: as many as fit", spec: autoscalingv1beta1.CapacityBufferSpec{Limits: autoscalingv1beta1.Limits{corev1.ResourceCPU: resource.MustParse("2500m")}}, want: 2},
		{name: "limits cap replicas", spec: autoscalingv1beta1.CapacityBufferSpec{Replicas: new(int32(5)), Limits: autoscalingv1beta1.Limits{corev1.ResourceMemory: resource.MustParse("1Gi")}}, want: 2},
		{name: "limits on a resource the pods do not ask for do not count", spec: autoscalingv1beta1.CapacityBufferSpec{Replicas: new(int32(5)), Limits: autoscalingv1beta1.Limits{"nvidia.com/gpu": resource.MustParse("1")}}, want: 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cb := &autoscalingv1beta1.CapacityBuffer{Spec: tc.spec}
			if got := Replicas(cb, &Resolution{Template: template("1"), WorkloadReplicas: tc.workload}); got != tc.want {
				t.Errorf("Replicas = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	now := metav1.Now()
	podTemplate := &autoscalingv1beta1.CapacityBuffer{ObjectMeta: metav1.ObjectMeta{Name: "b", Generation: 2},
		Spec: autoscalingv1beta1.CapacityBufferSpec{PodTemplateRef: &autoscalingv1beta1.LocalObjectRef{Name: "t"}, Replicas: new(int32(3))}}
	workload := &autoscalingv1beta1.CapacityBuffer{ObjectMeta: metav1.ObjectMeta{Name: "w"},
		Spec: autoscalingv1beta1.CapacityBufferSpec{ScalableRef: &autoscalingv1beta1.ScalableRef{Kind: "Deployment", Name: "app"}, Replicas: new(int32(1))}}
	other := podTemplate.DeepCopy()
	other.Spec.ProvisioningStrategy = new("example.com/standby")
	notFound := apierrors.NewNotFound(schema.GroupResource{Resource: "deployments"}, "app")
	for _, tc := range []struct {
		name       string
		cb         *autoscalingv1beta1.CapacityBuffer
		resolution *Resolution
		err        error
		ready      metav1.ConditionStatus
		reason     string
		replicas   *int32
		template   string
	}{
		{name: "a PodTemplate resolved", cb: podTemplate, resolution: &Resolution{Template: template("1"), PodTemplate: "t", PodTemplateGeneration: 4},
			ready: metav1.ConditionTrue, reason: ReasonResolved, replicas: new(int32(3)), template: "t"},
		{name: "a PodTemplate that does not exist", cb: podTemplate, err: apierrors.NewNotFound(schema.GroupResource{Resource: "podtemplates"}, "t"),
			ready: metav1.ConditionFalse, reason: ReasonPodTemplateNotFound},
		{name: "a workload that does not exist", cb: workload, err: notFound, ready: metav1.ConditionFalse, reason: ReasonScalableRefNotFound},
		{name: "a kind that has no pod template", cb: workload, err: unresolvable{errors.New("scalableRef kind \"Job\" is not supported")},
			ready: metav1.ConditionFalse, reason: ReasonResolutionFailed},
		{name: "another autoscaler's strategy", cb: other, resolution: &Resolution{Template: template("1")}, ready: metav1.ConditionFalse, reason: ReasonUnsupportedStrategy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status := Status(tc.cb, tc.resolution, tc.err, now)
			c := meta.FindStatusCondition(status.Conditions, autoscalingv1beta1.ConditionReadyForProvisioning)
			if c == nil || c.Status != tc.ready || c.Reason != tc.reason || c.ObservedGeneration != tc.cb.Generation {
				t.Fatalf("ReadyForProvisioning %+v, want %s %s", c, tc.ready, tc.reason)
			}
			if (status.Replicas == nil) != (tc.replicas == nil) || (tc.replicas != nil && *status.Replicas != *tc.replicas) {
				t.Errorf("replicas %v, want %v", status.Replicas, tc.replicas)
			}
			if got := ""; status.PodTemplateRef != nil {
				got = status.PodTemplateRef.Name
				if got != tc.template || *status.PodTemplateGeneration != tc.resolution.PodTemplateGeneration {
					t.Errorf("podTemplateRef %s generation %d", got, *status.PodTemplateGeneration)
				}
			} else if tc.template != "" {
				t.Errorf("no podTemplateRef, want %s", tc.template)
			}
			if !equalStrategy(status.ProvisioningStrategy, tc.cb.Spec.ProvisioningStrategy) {
				t.Errorf("provisioningStrategy %v, want the spec's", status.ProvisioningStrategy)
			}
		})
	}
}

func equalStrategy(a, b *string) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

func TestVirtualPods(t *testing.T) {
	tmpl := template("1")
	tmpl.Spec.NodeName = "somewhere"
	tmpl.Spec.Volumes = []corev1.Volume{
		{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}},
		{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}},
	}
	tmpl.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}, {Name: "config", MountPath: "/config"}}
	cb := &autoscalingv1beta1.CapacityBuffer{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns", UID: "u"},
		Status: autoscalingv1beta1.CapacityBufferStatus{Replicas: new(int32(2))}}
	pods := VirtualPods(cb, tmpl)
	if len(pods) != 2 || pods[0].UID == pods[1].UID {
		t.Fatalf("%d pods, want 2 of distinct UIDs", len(pods))
	}
	pod := pods[0]
	switch {
	case !IsVirtual(pod) || BufferOf(pod).String() != "ns/b":
		t.Errorf("not marked as buffer ns/b's: %v", pod.Annotations)
	case pod.Spec.NodeName != "" || *pod.Spec.Priority != -2147483648:
		t.Errorf("node %q, priority %d: want unbound, the lowest priority", pod.Spec.NodeName, *pod.Spec.Priority)
	case len(pod.Spec.Volumes) != 1 || len(pod.Spec.Containers[0].VolumeMounts) != 1 || pod.Spec.Volumes[0].Name != "config":
		t.Errorf("volumes %v, mounts %v: want the claim's gone, the ConfigMap's kept", pod.Spec.Volumes, pod.Spec.Containers[0].VolumeMounts)
	case pod.Labels["app"] != "buffer":
		t.Errorf("labels %v, want the template's", pod.Labels)
	}
	if len(tmpl.Spec.Volumes) != 2 {
		t.Error("the template was changed")
	}
}

func TestProvisioningCondition(t *testing.T) {
	now := metav1.Now()
	ready := func(replicas int32) *autoscalingv1beta1.CapacityBuffer {
		return &autoscalingv1beta1.CapacityBuffer{Status: autoscalingv1beta1.CapacityBufferStatus{Replicas: &replicas, Conditions: []metav1.Condition{
			{Type: autoscalingv1beta1.ConditionReadyForProvisioning, Status: metav1.ConditionTrue}}}}
	}
	for _, tc := range []struct {
		name      string
		cb        *autoscalingv1beta1.CapacityBuffer
		placement *Placement
		status    metav1.ConditionStatus
		reason    string
	}{
		{name: "not ready", cb: &autoscalingv1beta1.CapacityBuffer{}, status: metav1.ConditionFalse, reason: ReasonNotReadyForProvisioning},
		{name: "no chunks", cb: ready(0), status: metav1.ConditionFalse, reason: ReasonBufferEmpty},
		{name: "every chunk fits what exists", cb: ready(3), placement: &Placement{Existing: 3}, status: metav1.ConditionTrue, reason: ReasonFitsExistingCapacity},
		{name: "a chunk needs a new NodeClaim", cb: ready(3), placement: &Placement{Existing: 2, New: 1}, status: metav1.ConditionFalse, reason: ReasonRequiresNewCapacity},
		{name: "a chunk fits nowhere", cb: ready(3), placement: &Placement{Existing: 2, Failed: 1}, status: metav1.ConditionFalse, reason: ReasonRequiresNewCapacity},
		{name: "not placed in this pass: left as it is", cb: ready(3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ProvisioningCondition(tc.cb, tc.placement, now)
			if tc.reason == "" {
				if c != nil {
					t.Errorf("condition %+v, want none", c)
				}
				return
			}
			if c == nil || c.Status != tc.status || c.Reason != tc.reason {
				t.Errorf("condition %+v, want %s %s", c, tc.status, tc.reason)
			}
		})
	}
}

func TestPlacements(t *testing.T) {
	cb := &autoscalingv1beta1.CapacityBuffer{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns"}, Status: autoscalingv1beta1.CapacityBufferStatus{Replicas: new(int32(3))}}
	pods := VirtualPods(cb, template("1"))
	real := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "real"}}
	results := simulation.Results{
		Placed:    []simulation.Placement{{Pod: pods[0], ExistingNode: destination.NodeNamed("node-a")}, {Pod: pods[1], NodeClaim: &simulation.NewNodeClaim{}}, {Pod: real, ExistingNode: destination.NodeNamed("node-a")}},
		PodErrors: map[*corev1.Pod]error{pods[2]: errors.New("fits nowhere")},
	}
	got := Placements(results)
	if len(got) != 1 || *got[BufferOf(pods[0])] != (Placement{Existing: 1, New: 1, Failed: 1}) {
		t.Errorf("placements %v", got)
	}
}

func TestResolve(t *testing.T) {
	podTemplate := &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "ns", Generation: 3}, Template: template("1")}
	deployment := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "ns"}, Spec: appsv1.DeploymentSpec{Replicas: new(int32(10)), Template: template("2")}}
	statefulSet := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "ns"}, Spec: appsv1.StatefulSetSpec{Template: template("3")}}
	kube := fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithObjects(podTemplate, deployment, statefulSet).Build()
	buffer := func(spec autoscalingv1beta1.CapacityBufferSpec) *autoscalingv1beta1.CapacityBuffer {
		return &autoscalingv1beta1.CapacityBuffer{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns"}, Spec: spec}
	}
	for _, tc := range []struct {
		name       string
		spec       autoscalingv1beta1.CapacityBufferSpec
		cpu        string
		replicas   int32
		template   string
		notFound   bool
		unresolved bool
	}{
		{name: "PodTemplate", spec: autoscalingv1beta1.CapacityBufferSpec{PodTemplateRef: &autoscalingv1beta1.LocalObjectRef{Name: "t"}}, cpu: "1", template: "t"},
		{name: "Deployment", spec: autoscalingv1beta1.CapacityBufferSpec{ScalableRef: &autoscalingv1beta1.ScalableRef{APIGroup: "apps", Kind: "Deployment", Name: "app"}}, cpu: "2", replicas: 10},
		{name: "StatefulSet without replicas counts 1", spec: autoscalingv1beta1.CapacityBufferSpec{ScalableRef: &autoscalingv1beta1.ScalableRef{Kind: "StatefulSet", Name: "db"}}, cpu: "3", replicas: 1},
		{name: "a missing ReplicaSet", spec: autoscalingv1beta1.CapacityBufferSpec{ScalableRef: &autoscalingv1beta1.ScalableRef{Kind: "ReplicaSet", Name: "gone"}}, notFound: true},
		{name: "another kind", spec: autoscalingv1beta1.CapacityBufferSpec{ScalableRef: &autoscalingv1beta1.ScalableRef{Kind: "Job", Name: "app"}}, unresolved: true},
		{name: "another API group", spec: autoscalingv1beta1.CapacityBufferSpec{ScalableRef: &autoscalingv1beta1.ScalableRef{APIGroup: "example.com", Kind: "Deployment", Name: "app"}}, unresolved: true},
		{name: "no reference", spec: autoscalingv1beta1.CapacityBufferSpec{Replicas: new(int32(1))}, unresolved: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resolution, err := Resolve(t.Context(), kube, buffer(tc.spec))
			switch {
			case tc.notFound || tc.unresolved:
				if apierrors.IsNotFound(err) != tc.notFound || IsUnresolvable(err) != tc.unresolved {
					t.Errorf("error %v: want NotFound %t, unresolvable %t", err, tc.notFound, tc.unresolved)
				}
			case err != nil:
				t.Fatal(err)
			case resolution.Template.Spec.Containers[0].Resources.Requests.Cpu().String() != tc.cpu || resolution.WorkloadReplicas != tc.replicas || resolution.PodTemplate != tc.template:
				t.Errorf("resolution %+v", resolution)
			}
		})
	}
}
