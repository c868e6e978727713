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

package nodeclass

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// catalogStub answers as the catalog would, from what it holds.
type catalogStub struct {
	cluster     kakaocloud.Cluster
	clusterErr  error
	cached      *kakaocloud.Cluster
	versions    []kakaocloud.KubernetesVersion
	versionsErr error
	// images are the worker images by minor version.
	images    map[string][]kakaocloud.NodeImage
	imagesErr error
	subnets   []kakaocloud.Subnet
	groups    []kakaocloud.SecurityGroup
	lookupErr error
}

func (c *catalogStub) Cluster(context.Context) (kakaocloud.Cluster, error) {
	return c.cluster, c.clusterErr
}

func (c *catalogStub) CachedCluster() (kakaocloud.Cluster, bool) {
	if c.cached == nil {
		return kakaocloud.Cluster{}, false
	}
	return *c.cached, true
}

func (c *catalogStub) Versions(context.Context) ([]kakaocloud.KubernetesVersion, error) {
	return c.versions, c.versionsErr
}

func (c *catalogStub) NodeImages(_ context.Context, minor string) ([]kakaocloud.NodeImage, error) {
	return c.images[minor], c.imagesErr
}

func (c *catalogStub) SubnetsByID(_ context.Context, id string) ([]kakaocloud.Subnet, error) {
	return selected(c.subnets, c.lookupErr, func(s kakaocloud.Subnet) bool { return s.ID == id })
}

func (c *catalogStub) SubnetsByName(_ context.Context, name string) ([]kakaocloud.Subnet, error) {
	return selected(c.subnets, c.lookupErr, func(s kakaocloud.Subnet) bool { return s.Name == name })
}

func (c *catalogStub) SecurityGroupsByID(_ context.Context, id string) ([]kakaocloud.SecurityGroup, error) {
	return selected(c.groups, c.lookupErr, func(g kakaocloud.SecurityGroup) bool { return g.ID == id })
}

func (c *catalogStub) SecurityGroupsByName(_ context.Context, name string) ([]kakaocloud.SecurityGroup, error) {
	return selected(c.groups, c.lookupErr, func(g kakaocloud.SecurityGroup) bool { return g.Name == name })
}

func selected[T any](all []T, err error, match func(T) bool) ([]T, error) {
	if err != nil {
		return nil, err
	}
	var out []T
	for _, item := range all {
		if match(item) {
			out = append(out, item)
		}
	}
	return out, nil
}

// imageStub answers the images it holds by id, and not found otherwise.
type imageStub map[string]kakaocloud.Image

func (i imageStub) GetImage(_ context.Context, id string) (kakaocloud.Image, error) {
	if image, ok := i[id]; ok {
		return image, nil
	}
	return kakaocloud.Image{}, errors.New("image " + id + " not found")
}

func stubbed() *catalogStub {
	return &catalogStub{
		cluster:  kakaocloud.Cluster{Name: "live", Version: kakaocloud.KubernetesVersion{MinorVersion: "1.36"}},
		versions: []kakaocloud.KubernetesVersion{{MinorVersion: "1.36"}},
		images:   map[string][]kakaocloud.NodeImage{"1.36": {{ID: "img-136"}}, "1.35": {{ID: "img-135"}}},
		subnets: []kakaocloud.Subnet{
			{ID: "subnet-a", Name: "karpenter-subnet-a", AvailabilityZone: "kr-central-2-a", CIDRBlock: "10.0.0.0/20"},
			{ID: "subnet-b1", Name: "karpenter-subnet-b", AvailabilityZone: "kr-central-2-b"},
			{ID: "subnet-b2", Name: "karpenter-subnet-b", AvailabilityZone: "kr-central-2-b"},
		},
		groups: []kakaocloud.SecurityGroup{{ID: "sg-1", Name: "karpenter-workers"}},
	}
}

func TestObserveKakaoCloud(t *testing.T) {
	cached := kakaocloud.Cluster{Name: "cached"}
	for _, tc := range []struct {
		name    string
		catalog func(*catalogStub)
		spec    func(*kcv1.KCNodeClassSpec)
		check   func(t *testing.T, obs Observation)
	}{
		{name: "the cluster as read", check: func(t *testing.T, obs Observation) {
			if obs.Cluster == nil || obs.Cluster.Name != "live" || obs.ClusterErr != nil {
				t.Errorf("cluster %+v, %v; want the live one", obs.Cluster, obs.ClusterErr)
			}
		}},
		{name: "the cluster cannot be read: the last one read", catalog: func(c *catalogStub) { c.clusterErr, c.cached = errors.New("503"), &cached },
			check: func(t *testing.T, obs Observation) {
				if obs.Cluster == nil || obs.Cluster.Name != "cached" || obs.ClusterErr != nil {
					t.Errorf("cluster %+v, %v; want the cached one", obs.Cluster, obs.ClusterErr)
				}
			}},
		{name: "the cluster never read", catalog: func(c *catalogStub) { c.clusterErr = errors.New("503") },
			check: func(t *testing.T, obs Observation) {
				if obs.Cluster != nil || obs.ClusterErr == nil || obs.ClusterErr.Error() != "503" {
					t.Errorf("cluster %+v, %v; want none and the error", obs.Cluster, obs.ClusterErr)
				}
			}},
		{name: "the versions cannot be read", catalog: func(c *catalogStub) { c.versions, c.versionsErr = nil, errors.New("timeout") },
			check: func(t *testing.T, obs Observation) {
				if obs.Versions != nil || obs.VersionsErr == nil {
					t.Errorf("versions %v, %v; want none and the error", obs.Versions, obs.VersionsErr)
				}
			}},
		{name: "the images of the node class's version", spec: func(spec *kcv1.KCNodeClassSpec) { spec.Bootstrap.KubernetesVersion = "1.35" },
			check: func(t *testing.T, obs Observation) {
				if len(obs.Images) != 1 || obs.Images[0].ID != "img-135" || obs.PinnedImage != nil {
					t.Errorf("images %v, pinned %v; want 1.35's", obs.Images, obs.PinnedImage)
				}
			}},
		{name: "a pinned image, and no lookup of the version's", spec: func(spec *kcv1.KCNodeClassSpec) { spec.ImageID = "img-pinned" },
			check: func(t *testing.T, obs Observation) {
				if obs.PinnedImage == nil || obs.PinnedImage.ID != "img-pinned" || obs.PinnedImageErr != nil || obs.Images != nil {
					t.Errorf("pinned %v, %v, images %v; want the pinned image alone", obs.PinnedImage, obs.PinnedImageErr, obs.Images)
				}
			}},
		{name: "a pinned image that does not exist", spec: func(spec *kcv1.KCNodeClassSpec) { spec.ImageID = "img-gone" },
			check: func(t *testing.T, obs Observation) {
				if obs.PinnedImage != nil || obs.PinnedImageErr == nil || obs.PinnedImageErr.Error() != "image img-gone not found" {
					t.Errorf("pinned %v, %v; want none and the error", obs.PinnedImage, obs.PinnedImageErr)
				}
			}},
		{name: "subnets by id and by name, each once in the order selected, and the terms that select none",
			spec: func(spec *kcv1.KCNodeClassSpec) {
				spec.SubnetSelectorTerms = []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet-b"}, {ID: "subnet-a"}, {ID: "subnet-b2"},
					{Name: "karpenter-subnet-z"}, {ID: "subnet-9", Name: "karpenter-subnet-a"}}
			},
			check: func(t *testing.T, obs Observation) {
				want := []kcv1.Subnet{{ID: "subnet-b1", Name: "karpenter-subnet-b", Zone: "kr-central-2-b"}, {ID: "subnet-b2", Name: "karpenter-subnet-b", Zone: "kr-central-2-b"},
					{ID: "subnet-a", Name: "karpenter-subnet-a", Zone: "kr-central-2-a", CIDRBlock: "10.0.0.0/20"}}
				if !slices.Equal(obs.Subnets, want) || !slices.Equal(obs.MissingSubnets, []string{"name karpenter-subnet-z", "id subnet-9"}) || obs.SubnetsErr != nil {
					t.Errorf("subnets %v, missing %v, %v", obs.Subnets, obs.MissingSubnets, obs.SubnetsErr)
				}
			}},
		{name: "security groups by id and by name", spec: func(spec *kcv1.KCNodeClassSpec) {
			spec.SecurityGroupSelectorTerms = []kcv1.SecurityGroupSelectorTerm{{Name: "karpenter-workers"}, {ID: "sg-1"}, {ID: "sg-9"}}
		},
			check: func(t *testing.T, obs Observation) {
				if !slices.Equal(obs.SecurityGroups, []kcv1.SecurityGroup{{ID: "sg-1", Name: "karpenter-workers"}}) ||
					!slices.Equal(obs.MissingSecurityGroups, []string{"id sg-9"}) || obs.SecurityGroupsErr != nil {
					t.Errorf("security groups %v, missing %v, %v", obs.SecurityGroups, obs.MissingSecurityGroups, obs.SecurityGroupsErr)
				}
			}},
		{name: "a lookup that fails: nothing resolved, the error", catalog: func(c *catalogStub) { c.lookupErr = errors.New("network down") },
			check: func(t *testing.T, obs Observation) {
				if obs.Subnets != nil || obs.MissingSubnets != nil || obs.SubnetsErr == nil || obs.SecurityGroups != nil || obs.SecurityGroupsErr == nil {
					t.Errorf("subnets %v %v %v, security groups %v %v", obs.Subnets, obs.MissingSubnets, obs.SubnetsErr, obs.SecurityGroups, obs.SecurityGroupsErr)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat := stubbed()
			if tc.catalog != nil {
				tc.catalog(cat)
			}
			nodeClass := &kcv1.KCNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: kcv1.KCNodeClassSpec{
				Bootstrap:                  kcv1.Bootstrap{KubernetesVersion: "1.36"},
				SubnetSelectorTerms:        []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet-a"}},
				SecurityGroupSelectorTerms: []kcv1.SecurityGroupSelectorTerm{{Name: "karpenter-workers"}},
			}}
			if tc.spec != nil {
				tc.spec(&nodeClass.Spec)
			}
			reader := Reader{Client: fake.NewClientBuilder().WithScheme(testenv.Scheme()).Build(), Catalog: cat, Images: imageStub{"img-pinned": {ID: "img-pinned"}}}
			tc.check(t, reader.Observe(t.Context(), nodeClass))
		})
	}
}

func TestObserveNodeClaims(t *testing.T) {
	nodeClaim := func(name, class, key, launchedOn, providerID string) *karpv1.NodeClaim {
		nc := &karpv1.NodeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}, Annotations: map[string]string{}},
			Spec:       karpv1.NodeClaimSpec{NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: class}},
			Status:     karpv1.NodeClaimStatus{ProviderID: providerID},
		}
		if key != "" {
			nc.Labels[kcv1.LabelSigningKey] = key
		}
		if launchedOn != "" {
			nc.Annotations[kcv1.AnnotationKubernetesVersion] = launchedOn
		}
		return nc
	}
	node := func(name, providerID, kubelet string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID},
			Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KubeletVersion: kubelet}}}
	}
	objects := []client.Object{
		nodeClaim("registered", "default", "k1", "1.35", "kakaocloud:///vm-1"), node("node-1", "kakaocloud:///vm-1", "v1.34.2"),
		nodeClaim("launched", "default", "k1", "1.35", "kakaocloud:///vm-2"),
		nodeClaim("rotated", "default", "k2", "1.36", "kakaocloud:///vm-3"), node("node-3", "kakaocloud:///vm-3", "v1.36.1"),
		nodeClaim("pending", "default", "", "", ""),
		nodeClaim("other-class", "other", "k1", "1.36", "kakaocloud:///vm-4"), node("node-4", "kakaocloud:///vm-4", "v1.36.1"),
	}
	nodeClass := &kcv1.KCNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: kcv1.KCNodeClassSpec{Bootstrap: kcv1.Bootstrap{KubernetesVersion: "1.36"}}}

	kube := fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithObjects(objects...).Build()
	obs := Reader{Client: kube, Catalog: stubbed(), Images: imageStub{}}.Observe(t.Context(), nodeClass)
	if want := map[string]int32{"k1": 2, "k2": 1}; !maps.Equal(obs.SigningKeys, want) {
		t.Errorf("signing keys %v, want %v", obs.SigningKeys, want)
	}
	if want := map[string]int32{"1.34": 1, "1.35": 1, "1.36": 2}; !maps.Equal(obs.NodeVersions, want) {
		t.Errorf("node versions %v, want %v", obs.NodeVersions, want)
	}
	if obs.NodeClaimsErr != nil {
		t.Errorf("error %v", obs.NodeClaimsErr)
	}

	failing := fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithObjects(objects...).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if _, ok := list.(*corev1.NodeList); ok {
				return errors.New("cache not started")
			}
			return c.List(ctx, list, opts...)
		},
	}).Build()
	obs = Reader{Client: failing, Catalog: stubbed(), Images: imageStub{}}.Observe(t.Context(), nodeClass)
	if obs.SigningKeys != nil || obs.NodeVersions != nil || obs.NodeClaimsErr == nil || obs.NodeClaimsErr.Error() != "listing nodes: cache not started" {
		t.Errorf("keys %v, versions %v, error %v; want none and the error", obs.SigningKeys, obs.NodeVersions, obs.NodeClaimsErr)
	}
}

func TestNodeClaimVersion(t *testing.T) {
	launched := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{kcv1.AnnotationKubernetesVersion: "1.35"}}}
	node := func(kubelet string) *corev1.Node {
		return &corev1.Node{Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KubeletVersion: kubelet}}}
	}
	for _, tc := range []struct {
		name      string
		nodeClaim *karpv1.NodeClaim
		node      *corev1.Node
		want      string
	}{
		{"a registered node: its kubelet's minor", launched, node("v1.34.7"), "1.34"},
		{"a node that reports no version yet: the launch's", launched, node(""), "1.35"},
		{"launched, no node yet: the launch's", launched, nil, "1.35"},
		{"not launched yet: the node class's", &karpv1.NodeClaim{}, nil, "1.36"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := nodeClaimVersion(tc.nodeClaim, tc.node, "1.36"); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestRefersTo(t *testing.T) {
	for _, tc := range []struct {
		name string
		ref  *karpv1.NodeClassReference
		want bool
	}{
		{"the node class", &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: "default"}, true},
		{"another node class", &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: "other"}, false},
		{"another kind of the same name", &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}, false},
		{"no reference", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RefersTo(tc.ref, "default"); got != tc.want {
				t.Errorf("got %t, want %t", got, tc.want)
			}
		})
	}
}
