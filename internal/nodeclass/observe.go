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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/version"
)

// Catalog is what of KakaoCloud a KCNodeClass's status is read from: internal/catalog's
// cached view.
type Catalog interface {
	Cluster(ctx context.Context) (kakaocloud.Cluster, error)
	// CachedCluster is the last cluster read, however old.
	CachedCluster() (kakaocloud.Cluster, bool)
	Versions(ctx context.Context) ([]kakaocloud.KubernetesVersion, error)
	NodeImages(ctx context.Context, minorVersion string) ([]kakaocloud.NodeImage, error)
	SubnetsByID(ctx context.Context, id string) ([]kakaocloud.Subnet, error)
	SubnetsByName(ctx context.Context, name string) ([]kakaocloud.Subnet, error)
	SecurityGroupsByID(ctx context.Context, id string) ([]kakaocloud.SecurityGroup, error)
	SecurityGroupsByName(ctx context.Context, name string) ([]kakaocloud.SecurityGroup, error)
}

// ImageGetter reads a pinned image.
type ImageGetter interface {
	GetImage(ctx context.Context, id string) (kakaocloud.Image, error)
}

// Reader reads what a KCNodeClass's status depends on: KakaoCloud through the catalog, a
// pinned image, and the node class's NodeClaims and their nodes from the cluster. It only
// reads; a failed read is part of what it observed.
type Reader struct {
	Client  client.Reader
	Catalog Catalog
	Images  ImageGetter
}

// Observe reads everything the status of nodeClass depends on. A failed cluster read falls
// back to the last cluster read, so that a short Kubernetes Engine outage does not stop node
// creation.
func (r Reader) Observe(ctx context.Context, nodeClass *kcv1.KCNodeClass) Observation {
	var obs Observation
	if cluster, err := r.Catalog.Cluster(ctx); err == nil {
		obs.Cluster = &cluster
	} else if cached, ok := r.Catalog.CachedCluster(); ok {
		obs.Cluster = &cached
	} else {
		obs.ClusterErr = err
	}
	obs.Versions, obs.VersionsErr = r.Catalog.Versions(ctx)
	if nodeClass.Spec.ImageID != "" {
		image, err := r.Images.GetImage(ctx, nodeClass.Spec.ImageID)
		if err == nil {
			obs.PinnedImage = &image
		}
		obs.PinnedImageErr = err
	} else {
		obs.Images, obs.ImagesErr = r.Catalog.NodeImages(ctx, nodeClass.Spec.Bootstrap.KubernetesVersion)
	}
	obs.Subnets, obs.MissingSubnets, obs.SubnetsErr = r.resolveSubnets(ctx, nodeClass.Spec.SubnetSelectorTerms)
	obs.SecurityGroups, obs.MissingSecurityGroups, obs.SecurityGroupsErr = r.resolveSecurityGroups(ctx, nodeClass.Spec.SecurityGroupSelectorTerms)
	obs.SigningKeys, obs.NodeVersions, obs.NodeClaimsErr = r.countNodeClaims(ctx, nodeClass)
	return obs
}

// countNodeClaims counts the node class's NodeClaims by the signing key their VM's marker
// names (the label the cloud provider sets at launch; NodeClaims not launched yet have none)
// and by the Kubernetes minor version of their node (nodeClaimVersion).
func (r Reader) countNodeClaims(ctx context.Context, nodeClass *kcv1.KCNodeClass) (keys, versions map[string]int32, err error) {
	// Every change to a NodeClaim reconciles its node class, and every pass reads them all:
	// without copies, as nothing here writes them.
	claims := &karpv1.NodeClaimList{}
	if err := r.Client.List(ctx, claims, client.UnsafeDisableDeepCopy); err != nil {
		return nil, nil, fmt.Errorf("listing NodeClaims: %w", err)
	}
	nodes := &corev1.NodeList{}
	if err := r.Client.List(ctx, nodes, client.UnsafeDisableDeepCopy); err != nil {
		return nil, nil, fmt.Errorf("listing nodes: %w", err)
	}
	byProviderID := make(map[string]*corev1.Node, len(nodes.Items))
	for i := range nodes.Items {
		if id := nodes.Items[i].Spec.ProviderID; id != "" {
			byProviderID[id] = &nodes.Items[i]
		}
	}
	keys, versions = map[string]int32{}, map[string]int32{}
	for i := range claims.Items {
		nodeClaim := &claims.Items[i]
		if !RefersTo(nodeClaim.Spec.NodeClassRef, nodeClass.Name) {
			continue
		}
		if key := nodeClaim.Labels[kcv1.LabelSigningKey]; key != "" {
			keys[key]++
		}
		var node *corev1.Node
		if id := nodeClaim.Status.ProviderID; id != "" {
			node = byProviderID[id]
		}
		versions[nodeClaimVersion(nodeClaim, node, nodeClass.Spec.Bootstrap.KubernetesVersion)]++
	}
	return keys, versions, nil
}

// nodeClaimVersion is the Kubernetes minor version a NodeClaim's node is on: its kubelet's
// once the node has registered (whether Ready or not), before that the version its VM was
// launched with, and for a NodeClaim not launched yet the node class's, which its launch will
// use.
func nodeClaimVersion(nodeClaim *karpv1.NodeClaim, node *corev1.Node, nodeClassVersion string) string {
	if node != nil {
		if v, err := version.Minor(node.Status.NodeInfo.KubeletVersion); err == nil {
			return v.String()
		}
	}
	if v := nodeClaim.Annotations[kcv1.AnnotationKubernetesVersion]; v != "" {
		return v
	}
	return nodeClassVersion
}

func (r Reader) resolveSubnets(ctx context.Context, terms []kcv1.SubnetSelectorTerm) ([]kcv1.Subnet, []string, error) {
	return resolve(ctx, terms, r.Catalog.SubnetsByID, r.Catalog.SubnetsByName,
		func(s kakaocloud.Subnet) (string, kcv1.Subnet) {
			return s.ID, kcv1.Subnet{ID: s.ID, Name: s.Name, Zone: s.AvailabilityZone, CIDRBlock: s.CIDRBlock}
		})
}

func (r Reader) resolveSecurityGroups(ctx context.Context, terms []kcv1.SecurityGroupSelectorTerm) ([]kcv1.SecurityGroup, []string, error) {
	return resolve(ctx, terms, r.Catalog.SecurityGroupsByID, r.Catalog.SecurityGroupsByName,
		func(g kakaocloud.SecurityGroup) (string, kcv1.SecurityGroup) {
			return g.ID, kcv1.SecurityGroup{ID: g.ID, Name: g.Name}
		})
}

// selectorTerm is a subnet or security group selector term: an id, or else a name.
type selectorTerm interface {
	kcv1.SubnetSelectorTerm | kcv1.SecurityGroupSelectorTerm
}

// resolve looks every term up, by id or else by name, and returns what they select (each
// once, in the order selected, as status) and the terms that select nothing.
func resolve[Term selectorTerm, T, S any](ctx context.Context, terms []Term, byID, byName func(context.Context, string) ([]T, error),
	status func(T) (string, S)) ([]S, []string, error) {
	var found []S
	var missing []string
	seen := map[string]bool{}
	for _, term := range terms {
		// Both term types are an id and a name; the conversion says so to the compiler.
		sel := kcv1.SubnetSelectorTerm(term)
		lookup, key, what := byName, sel.Name, "name "+sel.Name
		if sel.ID != "" {
			lookup, key, what = byID, sel.ID, "id "+sel.ID
		}
		selected, err := lookup(ctx, key)
		if err != nil {
			return nil, nil, err
		}
		if len(selected) == 0 {
			missing = append(missing, what)
		}
		for _, item := range selected {
			if id, s := status(item); !seen[id] {
				seen[id] = true
				found = append(found, s)
			}
		}
	}
	return found, missing, nil
}

// RefersTo reports whether a NodePool's or NodeClaim's node class reference names the
// KCNodeClass name.
func RefersTo(ref *karpv1.NodeClassReference, name string) bool {
	return ref != nil && ref.Name == name && ref.Kind == "KCNodeClass"
}
