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
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/preflight"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
)

// runPreflight runs `manager preflight`: the read-only checks a user runs before the first
// NodePool, with the kubeconfig of whoever runs it (KUBECONFIG, or in-cluster). It prints one
// line per check and returns the exit code: 1 when a check failed.
func runPreflight(args []string) int {
	flags := flag.NewFlagSet("preflight", flag.ExitOnError)
	flags.Usage = func() {
		fmt.Fprintln(flags.Output(), "Usage: manager preflight [flags]\n\nChecks the credentials, KakaoCloud endpoints, the Kubernetes Engine cluster, every KCNodeClass, the RBAC nodes need to join and the signing keys, and says what to fix.")
		flags.PrintDefaults()
	}
	namespace := flags.String("namespace", envOr("POD_NAMESPACE", "karpenter-kakaocloud"), "The operator's namespace, which holds its Secrets (env POD_NAMESPACE).")
	serviceAccount := flags.String("service-account", "karpenter-kakaocloud-controller-manager", "The operator's ServiceAccount, whose rights are checked.")
	var cloud cloudOptions
	cloud.addFlags(flags)
	timeout := flags.Duration("timeout", 2*time.Minute, "How long the checks may take.")
	if err := parseFlags(flags, args, map[string]string{"KAKAOCLOUD_ENDPOINTS": "kakaocloud-endpoint"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}

	config, err := ctrl.GetConfig()
	if err != nil {
		fmt.Fprintf(os.Stderr, "no kubeconfig: %v\n", err)
		return 2
	}
	kube, err := client.New(config, client.Options{Scheme: scheme})
	if err != nil {
		fmt.Fprintf(os.Stderr, "connecting to the API server: %v\n", err)
		return 2
	}
	credentialsKey := client.ObjectKey{Namespace: *namespace, Name: cloud.credentialsSecret}
	keyringKey := client.ObjectKey{Namespace: *namespace, Name: cloud.keyringSecret}
	credentials := kakaocloud.SecretCredentials{Reader: kube, Secret: credentialsKey}
	kc, err := kakaocloud.New(kakaocloud.Config{Region: cloud.region, Endpoints: cloud.endpoints, Credentials: credentials})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	checker := preflight.New(kube, kc, credentials,
		signing.SecretKeyring{Reader: kube, Secret: keyringKey},
		client.ObjectKey{Namespace: *namespace, Name: *serviceAccount}, []client.ObjectKey{credentialsKey, keyringKey}, cloud.clusterName)
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	results := checker.Run(ctx)
	fmt.Print(preflight.Print(results))
	if preflight.Failed(results) {
		return 1
	}
	return 0
}
