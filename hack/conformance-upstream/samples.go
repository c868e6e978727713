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

package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	resourcehelper "k8s.io/component-helpers/resource"
)

// nodeSample is what the provisioned nodes were at one moment of a spec: how many nodes of
// each offering (what they cost) and what the pods bound to them request (what any set of
// nodes holding them must at least cost). Upstream's performance reports count nodes and time
// but not cost; the samples let the comparison price the nodes each report's moment found.
type nodeSample struct {
	Time time.Time `json:"time"`
	// Nodes counts the nodes by offering, not one entry a node: a sample is written each time
	// the cluster changes, and at a thousand nodes a list of them would make a run's samples
	// hundreds of megabytes.
	Nodes     []sampledNodes `json:"nodes"`
	Pods      int            `json:"pods"`
	CPU       float64        `json:"cpu"`
	MemoryGiB float64        `json:"memoryGiB"`
	// LastPodCreated is when the newest of the specs' pods (outside kube-system) was created:
	// a scale-out's pods come at the pace of the Deployment controller, and what follows
	// the last one is the autoscaler's part.
	LastPodCreated time.Time `json:"lastPodCreated"`
	// APIRequests are the controller's requests to the API server so far, by method and
	// answer ("PATCH 409"), when its metrics could be read: the load it puts on the API server
	// the kube-scheduler and kwok share with it.
	APIRequests map[string]float64 `json:"apiRequests,omitempty"`
}

// sampledNodes are the nodes of one offering.
type sampledNodes struct {
	InstanceType string `json:"instanceType"`
	Zone         string `json:"zone"`
	CapacityType string `json:"capacityType"`
	Count        int    `json:"count"`
}

// nodePoolLabel marks the nodes a NodePool provisioned: the only ones sampled.
const nodePoolLabel = "karpenter.sh/nodepool"

// sampler watches the cluster's nodes and pods (one watch for the whole run, so sampling costs
// the API server nothing per sample) and writes a spec's samples while it runs.
type sampler struct {
	nodes    corelisters.NodeLister
	pods     corelisters.PodLister
	interval time.Duration
	// metrics is the controller's metrics endpoint, read every apiInterval ("" for none).
	metrics string
}

// apiInterval is how often the controller's metrics are read: often enough to count a phase's
// requests to within a few seconds of its end, seldom enough to cost the controller (whose CPU
// the suite measures) little beside the suite's own reads every 5 s.
const apiInterval = 5 * time.Second

// newSampler starts watching the cluster of kubeconfig until ctx ends.
func newSampler(ctx context.Context, kubeconfig, metrics string, interval time.Duration) (*sampler, error) {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	clientset, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	factory := informers.NewSharedInformerFactory(clientset, 0)
	s := &sampler{nodes: factory.Core().V1().Nodes().Lister(), pods: factory.Core().V1().Pods().Lister(), interval: interval, metrics: metrics}
	factory.Start(ctx.Done())
	for informer, synced := range factory.WaitForCacheSync(ctx.Done()) {
		if !synced {
			return nil, fmt.Errorf("watching %v did not sync", informer)
		}
	}
	return s, nil
}

// record writes a sample to file (JSON, one a line) at once, then each time the nodes or
// pods differ from the last one written, looking every interval until ctx ends. Written only
// on a change, the samples can be looked at often and still say what the cluster was at any
// moment (the last one before it) to within the interval: a phase of upstream's suite ends at
// any moment, and a scale-out adds nodes every few seconds.
func (s *sampler) record(ctx context.Context, file string) error {
	out, err := os.Create(file)
	if err != nil {
		return err
	}
	defer func() { _ = out.Close() }()
	encoder := json.NewEncoder(out)
	ticker := time.NewTicker(s.interval)
	defer ticker.Stop()
	var last *nodeSample
	var requests map[string]float64
	var read time.Time
	for {
		now := time.Now()
		sample, err := s.sample(now)
		if err != nil {
			return err
		}
		if s.metrics != "" && now.Sub(read) >= apiInterval {
			read = now
			// A controller restarting answers nothing for a moment: its last counts stand.
			if current, err := apiRequests(ctx, s.metrics); err == nil {
				requests = current
			}
		}
		sample.APIRequests = requests
		if last == nil || !sample.sameState(*last) || !maps.Equal(sample.APIRequests, last.APIRequests) {
			if err := encoder.Encode(sample); err != nil {
				return err
			}
			last = &sample
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// sample is the provisioned nodes at now and the requests of the pods bound to them that still
// run (neither terminating nor finished).
func (s *sampler) sample(now time.Time) (nodeSample, error) {
	selector, err := labels.Parse(nodePoolLabel)
	if err != nil {
		return nodeSample{}, err
	}
	nodes, err := s.nodes.List(selector)
	if err != nil {
		return nodeSample{}, err
	}
	pods, err := s.pods.List(labels.Everything())
	if err != nil {
		return nodeSample{}, err
	}
	return summarizeNodes(now, nodes, pods), nil
}

// sameState is whether two samples found the same nodes and pods, whenever they were taken.
func (s nodeSample) sameState(other nodeSample) bool {
	return slices.Equal(s.Nodes, other.Nodes) && s.Pods == other.Pods && s.CPU == other.CPU &&
		s.MemoryGiB == other.MemoryGiB && s.LastPodCreated.Equal(other.LastPodCreated)
}

func summarizeNodes(now time.Time, nodes []*corev1.Node, pods []*corev1.Pod) nodeSample {
	sample := nodeSample{Time: now, Nodes: []sampledNodes{}}
	provisioned := map[string]bool{}
	var milliCPU, memory int64
	counts := map[sampledNodes]int{}
	for _, node := range nodes {
		provisioned[node.Name] = true
		counts[sampledNodes{
			InstanceType: node.Labels[corev1.LabelInstanceTypeStable],
			Zone:         node.Labels[corev1.LabelTopologyZone],
			CapacityType: node.Labels["karpenter.sh/capacity-type"],
		}]++
	}
	for offering, count := range counts {
		offering.Count = count
		sample.Nodes = append(sample.Nodes, offering)
	}
	slices.SortFunc(sample.Nodes, func(a, b sampledNodes) int {
		return cmp.Or(strings.Compare(a.InstanceType, b.InstanceType), strings.Compare(a.Zone, b.Zone), strings.Compare(a.CapacityType, b.CapacityType))
	})
	for _, pod := range pods {
		if created := pod.CreationTimestamp.Time; pod.Namespace != metav1.NamespaceSystem && created.After(sample.LastPodCreated) {
			sample.LastPodCreated = created
		}
		if !provisioned[pod.Spec.NodeName] || pod.DeletionTimestamp != nil ||
			pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			continue
		}
		requests := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
		sample.Pods++
		milliCPU += requests.Cpu().MilliValue()
		memory += requests.Memory().Value()
	}
	// Summed whole, in the listers' order whatever it is, the same pods give the same figures.
	sample.CPU, sample.MemoryGiB = float64(milliCPU)/1000, float64(memory)/(1<<30)
	return sample
}

// apiRequests reads the controller's requests to the API server from its metrics: client-go's
// counter, which controller-runtime serves as rest_client_requests_total and upstream
// Karpenter as client_go_request_total, summed by method and code.
func apiRequests(ctx context.Context, url string) (map[string]float64, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	return countRequests(families), nil
}

// countRequests sums client-go's request counters by method and code.
func countRequests(families map[string]*dto.MetricFamily) map[string]float64 {
	counts := map[string]float64{}
	for _, name := range []string{"rest_client_requests_total", "client_go_request_total"} {
		family, ok := families[name]
		if !ok {
			continue
		}
		for _, m := range family.GetMetric() {
			var method, code string
			for _, label := range m.GetLabel() {
				switch label.GetName() {
				case "method":
					method = label.GetValue()
				case "code":
					code = label.GetValue()
				}
			}
			counts[method+" "+code] += m.GetCounter().GetValue()
		}
	}
	return counts
}
