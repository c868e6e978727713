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

// Command kakaocloud-emulator serves the KakaoCloud emulator over HTTP for local runs: the
// IAM, BCS, Image, VPC, Network and Kubernetes Engine APIs under one address, one path
// prefix per service, plus the admin API under /_emulator/.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator/kubelet"
)

// shutdownTimeout bounds how long in-flight requests may take once a signal arrives.
const shutdownTimeout = 5 * time.Second

func main() {
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	if err := run(logger); err != nil {
		logger.Error("emulator failed", "error", err)
		os.Exit(1)
	}
}

func run(logger *slog.Logger) error {
	listen := flag.String("listen", "127.0.0.1:8090", "address to serve on; the default binds loopback only, as the admin API has no authentication")
	catalogPath := flag.String("catalog", "", "YAML catalog of flavors, images, subnets, security groups, versions and the cluster (default: the built-in one)")
	accessKeyID := flag.String("access-key-id", emulator.DefaultAccessKeyID, "access key id accepted by IAM")
	secretAccessKey := flag.String("secret-access-key", emulator.DefaultSecretAccessKey, "secret of that access key")
	buildDelay := flag.Duration("build-delay", emulator.DefaultBuildDelay, "how long a new instance stays building")
	deleteDelay := flag.Duration("delete-delay", emulator.DefaultDeleteDelay, "how long a deleted instance stays deleting")
	listLag := flag.Duration("list-lag", 0, "how long a new instance stays out of instance listings (0: listed at once)")
	tokenTTL := flag.Duration("token-ttl", emulator.DefaultTokenTTL, "lifetime of issued tokens")
	registerNodes := flag.String("register-nodes-kubeconfig", "", "play the kubelets of the VMs on the cluster of this kubeconfig: "+
		"an active VM whose user data starts a kubelet registers its Node (for kwok to keep Ready), and the Node of a VM that is gone is deleted")
	flag.Parse()

	opts := emulator.Options{
		Credentials: map[string]string{*accessKeyID: *secretAccessKey},
		BuildDelay:  *buildDelay,
		DeleteDelay: *deleteDelay,
		TokenTTL:    *tokenTTL,
		ListLag:     *listLag,
	}
	catalog := emulator.DefaultCatalog()
	if *catalogPath != "" {
		var err error
		if catalog, err = emulator.LoadCatalog(*catalogPath); err != nil {
			return err
		}
	}
	opts.Catalog = catalog
	e := emulator.New(opts)

	listener, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("opening the -listen address: %w", err)
	}
	address := listener.Addr().(*net.TCPAddr)
	if !address.IP.IsLoopback() {
		logger.Warn("serving beyond loopback: anyone who can reach this address can use the admin API", "listen", address.String())
	}
	baseURL := "http://" + address.String()
	logger.Info("KakaoCloud emulator serving", "listen", address.String(), "endpoints", e.Endpoints(baseURL), "admin", baseURL+emulator.AdminPrefix)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e.Start(ctx)
	if *registerNodes != "" {
		if err := startKubelets(ctx, e, catalog, *registerNodes, logger); err != nil {
			return err
		}
	}

	server := &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- server.Serve(listener) }()

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := server.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down the server: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// startKubelets registers the nodes of the emulator's VMs on the cluster of kubeconfig.
func startKubelets(ctx context.Context, e *emulator.Emulator, catalog *emulator.Catalog, kubeconfig string, logger *slog.Logger) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("reading the kubeconfig %s: %w", kubeconfig, err)
	}
	// It stands in for the kubelet of every VM, each of which has a client of its own: one
	// client-side rate limit (client-go's 5 requests a second) would hold hundreds of nodes
	// that boot together back by minutes. The API server's priority and fairness still apply.
	cfg.QPS = -1
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("making a client of %s: %w", cfg.Host, err)
	}
	kubelet.New(e, kubelet.Options{
		Client:                     client,
		AuthenticateBootstrapToken: kubelet.BootstrapTokenAuthenticator(cfg),
		NodeInfo:                   kubelet.CatalogNodeInfo(catalog),
		Logger:                     logger,
	}).Start(ctx)
	logger.Info("registering the nodes of active VMs", "apiServer", cfg.Host)
	return nil
}
