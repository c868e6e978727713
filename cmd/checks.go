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
	"errors"
	"fmt"
	"net"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/bootstrap"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// checkOptions refuses flags that cannot work or that would expose what must not be, and
// returns notes on settings that are allowed but worth logging.
func checkOptions(o options) ([]string, error) {
	var notes []string
	var errs []error
	if o.kubeClientQPS <= 0 || o.kubeClientBurst <= 0 {
		// client-go reads a rate of 0 as its own default, and a negative one as no limit.
		errs = append(errs, fmt.Errorf("--kube-client-qps %d or --kube-client-burst %d: both must be positive", o.kubeClientQPS, o.kubeClientBurst))
	}
	if c := o.kakaoCloudCalls; c.qps <= 0 || c.burst <= 0 || c.callTimeout <= 0 || c.maxRetryAfter <= 0 {
		errs = append(errs, fmt.Errorf("--kakaocloud-client-qps %v, --kakaocloud-client-burst %d, --kakaocloud-call-timeout %s or --kakaocloud-max-retry-after %s: all must be positive",
			c.qps, c.burst, c.callTimeout, c.maxRetryAfter))
	}
	switch {
	case o.bootstrapTokenTTL <= 0:
		errs = append(errs, fmt.Errorf("--bootstrap-token-ttl %s: must be positive", o.bootstrapTokenTTL))
	case o.bootstrapTokenTTL < bootstrap.DefaultTokenTTL:
		notes = append(notes, fmt.Sprintf("--bootstrap-token-ttl %s is shorter than the launch and registration timeouts together (%s): "+
			"a node that takes longer than that to join will not register, and its NodeClaim is replaced at the registration timeout",
			o.bootstrapTokenTTL, bootstrap.DefaultTokenTTL))
	}
	// Go's profiles tell the operator's flags and memory to whoever reads them, and a CPU
	// profile or a trace costs the operator a core while it runs: they are served without
	// authentication only where nothing but the pod itself (or a port-forward) reaches them.
	if o.enableProfiling && !o.secureMetrics && beyondLoopback(o.metricsAddr) {
		errs = append(errs, fmt.Errorf("--enable-profiling with --metrics-secure=false would serve Go's profiles without authentication on %q: "+
			"serve metrics securely (the default), bind them to a loopback address, or leave profiling off", o.metricsAddr))
	}
	if beyondLoopback(o.pprofAddr) {
		errs = append(errs, fmt.Errorf("--pprof-bind-address %q: Go's profiles are served there without authentication, so only on a loopback address "+
			"(127.0.0.1:6060, reached with kubectl port-forward), or on the secure metrics endpoint with --enable-profiling", o.pprofAddr))
	}
	return notes, errors.Join(errs...)
}

// beyondLoopback reports whether a server bound to address (host:port; "" or "0" for no
// server) can be reached from anywhere but this machine or pod. A host name other than
// localhost may resolve to anything, and so counts as reachable.
func beyondLoopback(address string) bool {
	if address == "" || address == "0" {
		return false
	}
	host, _, err := net.SplitHostPort(address)
	return err != nil || !kakaocloud.LoopbackHost(host)
}
