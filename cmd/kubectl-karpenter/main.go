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

// kubectl-karpenter is the kubectl plugin `kubectl karpenter`: it says why a pod waits, why a
// node is or is not being disrupted, what a NodePool's budgets and limits allow now, and what
// an edit of a NodePool or KCNodeClass, or a new pod, would do. It only reads the cluster, and
// asks the operator, which changes nothing, for what only it knows.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/plugin"
)

func main() {
	if err := command().Execute(); err != nil {
		os.Exit(1)
	}
}

func command() *cobra.Command {
	flags := genericclioptions.NewConfigFlags(true)
	var output string
	root := &cobra.Command{
		Use:          "kubectl-karpenter",
		Short:        "Ask Karpenter why, and what if",
		SilenceUsage: true,
		// kubectl runs the plugin as "kubectl karpenter": its help says so.
		Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl karpenter"},
	}
	flags.AddFlags(root.PersistentFlags())
	root.PersistentFlags().StringVarP(&output, "output", "o", "table", "table, or json for scripts")

	// run reads the cluster through a client of the kubeconfig flags and prints what ask answers.
	run := func(ask func(context.Context, client.Client) (any, error)) error {
		kube, err := newClient(flags)
		if err != nil {
			return err
		}
		answer, err := ask(context.Background(), kube)
		if err != nil {
			return err
		}
		return plugin.Print(os.Stdout, answer, output)
	}

	why := &cobra.Command{Use: "why", Short: "Why a pod waits, a node is or is not disrupted, a NodePool allows what it does"}
	why.AddCommand(&cobra.Command{
		Use:   "pod [NAMESPACE/]NAME",
		Short: "Where provisioning put the pod; or, when it found no place, why each NodePool refuses it now, as the operator simulates it",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			key, err := podKey(flags, args[0])
			if err != nil {
				return err
			}
			config, err := flags.ToRESTConfig()
			if err != nil {
				return fmt.Errorf("reading the kubeconfig: %w", err)
			}
			return run(func(ctx context.Context, kube client.Client) (any, error) {
				return plugin.WhyPod(ctx, kube, key, plugin.AskOperator(config))
			})
		},
	}, &cobra.Command{
		Use:   "node NAME",
		Short: "What the disruption loop last said of the node, and its NodeClaim's disruption conditions",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return run(func(ctx context.Context, kube client.Client) (any, error) { return plugin.WhyNode(ctx, kube, args[0]) })
		},
	}, &cobra.Command{
		Use:   "nodepool NAME",
		Short: "What the NodePool's budgets allow now and when the next window opens, its limits used, its drifted nodes",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return run(func(ctx context.Context, kube client.Client) (any, error) {
				return plugin.WhyNodePool(ctx, kube, args[0], time.Now())
			})
		},
	})

	var file string
	// whatAbout asks the operator about the manifest of the -f file.
	whatAbout := func() error {
		manifest, err := readFile(file)
		if err != nil {
			return err
		}
		config, err := flags.ToRESTConfig()
		if err != nil {
			return fmt.Errorf("reading the kubeconfig: %w", err)
		}
		return run(func(ctx context.Context, _ client.Client) (any, error) {
			return plugin.WhatIf(ctx, config, manifest)
		})
	}
	whatif := &cobra.Command{
		Use:   "whatif -f FILE",
		Short: "What an edited NodePool or KCNodeClass would drift, launch and cost once applied, as the operator simulates it",
		Args:  cobra.NoArgs,
		RunE:  func(_ *cobra.Command, _ []string) error { return whatAbout() },
	}
	whatif.AddCommand(&cobra.Command{
		Use:   "pod -f FILE",
		Short: "Where a pod would land if it were created now, or what would launch for it, as the operator simulates it",
		Args:  cobra.NoArgs,
		RunE:  func(_ *cobra.Command, _ []string) error { return whatAbout() },
	})
	whatif.PersistentFlags().StringVarP(&file, "filename", "f", "", "the edited NodePool or KCNodeClass, or the pod (- for standard input)")
	_ = whatif.MarkPersistentFlagRequired("filename")

	root.AddCommand(why, whatif)
	return root
}

func readFile(name string) ([]byte, error) {
	if name == "-" {
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			return nil, fmt.Errorf("reading the manifest from standard input: %w", err)
		}
		return data, nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("reading the manifest: %w", err)
	}
	return data, nil
}

// podKey reads NAMESPACE/NAME, or NAME in the kubeconfig's namespace (or -n's).
func podKey(flags *genericclioptions.ConfigFlags, arg string) (types.NamespacedName, error) {
	if ns, name, ok := strings.Cut(arg, "/"); ok {
		return types.NamespacedName{Namespace: ns, Name: name}, nil
	}
	ns, _, err := flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return types.NamespacedName{}, fmt.Errorf("reading the namespace of the kubeconfig: %w", err)
	}
	return types.NamespacedName{Namespace: ns, Name: arg}, nil
}

// newClient is a client of the cluster the kubeconfig flags name, knowing Karpenter's kinds.
func newClient(flags *genericclioptions.ConfigFlags) (client.Client, error) {
	config, err := flags.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, karpv1.AddToScheme, kcv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("building the scheme: %w", err)
		}
	}
	kube, err := client.New(config, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("making a client of %s: %w", config.Host, err)
	}
	return kube, nil
}
