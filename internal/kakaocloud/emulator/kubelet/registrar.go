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

package kubelet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

// providerIDPrefix is how the provider's ids start (kcv1.ProviderIDPrefix); nodes with other
// ids are not this cloud's.
const providerIDPrefix = "kakaocloud://"

// Cloud is what the kubelets see of the emulated cloud: *emulator.Emulator.
type Cloud interface {
	OnInstanceActive(hook func(kakaocloud.Instance))
	Instances() []kakaocloud.Instance
	UserData(id string) (string, bool)
}

// Options configure a Registrar.
type Options struct {
	// Client registers and deletes nodes.
	Client kubernetes.Interface
	// AuthenticateBootstrapToken, when set, checks a VM's bootstrap token the way the
	// kubelet's TLS bootstrap would use it; a VM whose token does not authenticate does not
	// register (and is retried). See BootstrapTokenAuthenticator.
	AuthenticateBootstrapToken func(ctx context.Context, token string) error
	// NodeInfo tells the kubelet version and OS of a VM's image; nil leaves them to kwok.
	NodeInfo func(kakaocloud.Instance) NodeInfo
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// ResyncInterval is how often nodes whose VM is gone are looked for; 0 means 1s.
	ResyncInterval time.Duration
	// Workers register nodes in parallel; 0 means 4.
	Workers int
}

// Registrar registers the nodes of active VMs and removes the nodes of VMs that are gone.
type Registrar struct {
	cloud Cloud
	opts  Options
	log   *slog.Logger
	queue workqueue.TypedRateLimitingInterface[string]

	mu       sync.Mutex
	snapshot map[string]kakaocloud.Instance // the VM as it became active, by id
}

// New returns a Registrar of cloud's VMs; Start runs it.
func New(cloud Cloud, opts Options) *Registrar {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ResyncInterval == 0 {
		opts.ResyncInterval = time.Second
	}
	if opts.Workers == 0 {
		opts.Workers = 4
	}
	return &Registrar{
		cloud: cloud,
		opts:  opts,
		log:   opts.Logger.With("component", "kubelet"),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](500*time.Millisecond, 30*time.Second),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "kubelet"}),
		snapshot: map[string]kakaocloud.Instance{},
	}
}

// Start hooks the Registrar into the cloud and runs it until ctx is done. It returns at once.
func (r *Registrar) Start(ctx context.Context) {
	// Hooks run on whichever goroutine made the VM active, an API call among them: queue and
	// return.
	r.cloud.OnInstanceActive(func(in kakaocloud.Instance) {
		r.mu.Lock()
		r.snapshot[in.ID] = in
		r.mu.Unlock()
		r.queue.Add(in.ID)
	})
	go func() {
		<-ctx.Done()
		r.queue.ShutDown()
	}()
	for range r.opts.Workers {
		go func() {
			for r.processNext(ctx) {
			}
		}()
	}
	go wait.UntilWithContext(ctx, func(ctx context.Context) {
		if err := r.RemoveNodesOfGoneVMs(ctx); err != nil && ctx.Err() == nil {
			r.log.Error("looking for nodes of VMs that are gone", "error", err)
		}
		if err := r.StopKubeletsOfDownVMs(ctx); err != nil && ctx.Err() == nil {
			r.log.Error("looking for nodes of VMs that are down", "error", err)
		}
	}, r.opts.ResyncInterval)
}

func (r *Registrar) processNext(ctx context.Context) bool {
	id, shutdown := r.queue.Get()
	if shutdown {
		return false
	}
	defer r.queue.Done(id)
	retry, err := r.Register(ctx, id)
	switch {
	case err != nil && retry:
		r.log.Warn("the kubelet could not register its node yet; retrying", "instance", id, "error", err)
		r.queue.AddRateLimited(id)
	case err != nil:
		r.log.Error("the kubelet does not register a node", "instance", id, "error", err)
		fallthrough
	default:
		r.queue.Forget(id)
		r.mu.Lock()
		delete(r.snapshot, id)
		r.mu.Unlock()
	}
	return true
}

// Register registers the node of VM id, as its kubelet does once the VM has booted. retry
// says whether a failure is worth another attempt (the VM is still there and the failure may
// pass); a VM that is no longer active, or whose user data starts no kubelet, is not an
// error.
func (r *Registrar) Register(ctx context.Context, id string) (retry bool, err error) {
	inst, active := r.current(id)
	if !active {
		return false, nil
	}
	userData, ok := r.cloud.UserData(id)
	if !ok {
		return false, nil
	}
	flags, found, err := ParseUserData(userData, id)
	if err != nil {
		return false, fmt.Errorf("the kubelet of VM %s (%s) refuses its flags: %w", inst.Name, id, err)
	}
	if !found {
		r.log.Info("VM runs no kubelet: its user data has no KUBELET_EXTRA_ARGS", "instance", id, "name", inst.Name)
		return false, nil
	}
	if r.opts.AuthenticateBootstrapToken != nil {
		if flags.BootstrapToken == "" {
			return false, fmt.Errorf("VM %s (%s) has no bootstrap token in its user data", inst.Name, id)
		}
		if err := r.opts.AuthenticateBootstrapToken(ctx, flags.BootstrapToken); err != nil {
			return true, fmt.Errorf("the bootstrap token of VM %s (%s): %w", inst.Name, id, err)
		}
	}
	var info NodeInfo
	if r.opts.NodeInfo != nil {
		info = r.opts.NodeInfo(inst)
	}
	node, err := NewNode(inst, flags, info)
	if err != nil {
		return false, err
	}
	_, err = r.opts.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		existing, getErr := r.opts.Client.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
		if getErr != nil {
			return true, fmt.Errorf("reading node %s, which exists already: %w", node.Name, getErr)
		}
		if existing.Spec.ProviderID == node.Spec.ProviderID {
			return false, nil // registered already
		}
		// The hostname was another VM's, whose node is not deleted yet: wait for it.
		return true, fmt.Errorf("node %s exists for another machine (%s)", node.Name, existing.Spec.ProviderID)
	}
	if err != nil {
		return true, fmt.Errorf("creating node %s: %w", node.Name, err)
	}
	r.log.Info("registered node", "node", node.Name, "instance", id, "name", inst.Name, "providerID", node.Spec.ProviderID,
		"flavor", inst.Flavor.Name, "zone", inst.AvailabilityZone)
	return false, nil
}

// current returns the VM as it is now, and whether it is active.
func (r *Registrar) current(id string) (kakaocloud.Instance, bool) {
	for _, in := range r.cloud.Instances() {
		if in.ID == id {
			return in, in.Status == kakaocloud.InstanceStatusActive
		}
	}
	return kakaocloud.Instance{}, false
}

// StopKubeletsOfDownVMs stops the kubelet of every node whose VM is stopped or in error, as a
// VM that stops takes its kubelet with it: kwok no longer plays the node's status, and the
// node's Ready condition turns Unknown, as the node lifecycle controller turns it once the
// kubelet's lease runs out. That controller cannot do it here: kwok (v0.8.0) keeps renewing the
// lease of a node it stopped managing, because it filters nodes by annotation on its side of
// the watch and so never sees the node leave. The condition is set again on every pass, so
// that a status kwok had scheduled before it stopped does not bring the node back.
func (r *Registrar) StopKubeletsOfDownVMs(ctx context.Context) error {
	down := map[string]bool{}
	for _, in := range r.cloud.Instances() {
		if in.Status == kakaocloud.InstanceStatusStopped || in.Status == kakaocloud.InstanceStatusError {
			down[in.ID] = true
		}
	}
	if len(down) == 0 {
		return nil
	}
	nodes, err := r.opts.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	var errs []error
	for i := range nodes.Items {
		node := &nodes.Items[i]
		id, ours := strings.CutPrefix(node.Spec.ProviderID, providerIDPrefix)
		if !ours || !down[id] {
			continue
		}
		if node.Annotations[KwokNodeAnnotation] == KwokNodeAnnotationValue {
			patch := []byte(`{"metadata":{"annotations":{"` + KwokNodeAnnotation + `":null}}}`)
			patched, err := r.opts.Client.CoreV1().Nodes().Patch(ctx, node.Name, types.MergePatchType, patch, metav1.PatchOptions{})
			if err != nil {
				if !apierrors.IsNotFound(err) {
					errs = append(errs, fmt.Errorf("stopping the kubelet of node %s: %w", node.Name, err))
				}
				continue
			}
			node = patched
			r.log.Info("the kubelet stopped: its VM is down", "node", node.Name, "providerID", node.Spec.ProviderID)
		}
		if err := r.markReadyUnknown(ctx, node); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// markReadyUnknown sets the node's conditions as the node lifecycle controller sets them when
// the kubelet stopped posting its status: Ready Unknown, reason NodeStatusUnknown.
func (r *Registrar) markReadyUnknown(ctx context.Context, node *corev1.Node) error {
	now := metav1.Now()
	updated := false
	for i := range node.Status.Conditions {
		c := &node.Status.Conditions[i]
		if c.Type != corev1.NodeReady || c.Status == corev1.ConditionUnknown {
			continue
		}
		c.Status, c.Reason, c.Message = corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status."
		c.LastTransitionTime = now
		updated = true
	}
	if !updated {
		return nil
	}
	if _, err := r.opts.Client.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("setting the Ready condition of node %s Unknown: %w", node.Name, err)
	}
	r.log.Info("the node's Ready condition is Unknown: its kubelet stopped", "node", node.Name)
	return nil
}

// RemoveNodesOfGoneVMs deletes the kwok-managed nodes of this cloud whose VM no longer
// exists, as a cloud node lifecycle controller does. Finalizers on the node still hold it.
func (r *Registrar) RemoveNodesOfGoneVMs(ctx context.Context) error {
	nodes, err := r.opts.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	// Read the cloud after the nodes: a VM created in between is not taken for gone.
	existing := map[string]bool{}
	for _, in := range r.cloud.Instances() {
		existing[in.ID] = true
	}
	var errs []error
	for _, node := range nodes.Items {
		id, ours := strings.CutPrefix(node.Spec.ProviderID, providerIDPrefix)
		if !ours || node.Annotations[KwokNodeAnnotation] != KwokNodeAnnotationValue || existing[id] || node.DeletionTimestamp != nil {
			continue
		}
		err := r.opts.Client.CoreV1().Nodes().Delete(ctx, node.Name, metav1.DeleteOptions{
			Preconditions: &metav1.Preconditions{UID: &node.UID},
		})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, fmt.Errorf("deleting node %s: %w", node.Name, err))
			continue
		}
		if err == nil {
			r.log.Info("deleted node: its VM is gone", "node", node.Name, "providerID", node.Spec.ProviderID)
		}
	}
	return errors.Join(errs...)
}

// BootstrapTokenAuthenticator returns a check of a bootstrap token against the API server of
// cfg, the first thing a kubelet's TLS bootstrap does with it: the token must authenticate as
// a member of system:bootstrappers.
func BootstrapTokenAuthenticator(cfg *rest.Config) func(ctx context.Context, token string) error {
	return func(ctx context.Context, token string) error {
		c := rest.AnonymousClientConfig(cfg)
		c.BearerToken = token
		client, err := kubernetes.NewForConfig(c)
		if err != nil {
			return fmt.Errorf("making a client: %w", err)
		}
		review, err := client.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("does not authenticate: %w", err)
		}
		if groups := review.Status.UserInfo.Groups; !slices.Contains(groups, "system:bootstrappers") {
			return fmt.Errorf("authenticates as %s in %v, not as a bootstrapper", review.Status.UserInfo.Username, groups)
		}
		return nil
	}
}

// CatalogNodeInfo returns what a VM's image tells its node, from the catalog's
// Kubernetes Engine node images: the kubelet version is the patch version of the image's
// Kubernetes minor version.
func CatalogNodeInfo(c *emulator.Catalog) func(kakaocloud.Instance) NodeInfo {
	return func(in kakaocloud.Instance) NodeInfo {
		for _, img := range c.NodeImages {
			if img.ID != in.Image.ID {
				continue
			}
			info := NodeInfo{KernelVersion: img.KernelVersion, OSImage: strings.TrimSpace(osImage(img))}
			for _, v := range c.Versions {
				if v.MinorVersion == img.K8sVersion || v.PatchVersion == img.K8sVersion {
					info.KubeletVersion = "v" + v.PatchVersion
				}
			}
			return info
		}
		return NodeInfo{}
	}
}

func osImage(img kakaocloud.NodeImage) string {
	distro := img.OSDistro
	if distro != "" {
		distro = strings.ToUpper(distro[:1]) + distro[1:]
	}
	return distro + " " + img.OSVersion
}

var _ Cloud = (*emulator.Emulator)(nil)
