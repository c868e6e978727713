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

// Command servicenet stands in for the service network of the local cluster, where pods are
// kwok's and have no network of their own. The kube-apiserver is configured (egress selector,
// "cluster" traffic over HTTP CONNECT on a Unix socket) to reach Services through it: that is
// how it calls admission webhooks that name a Service, as OLM's and the Helm chart's do; it
// asks for the Service's cluster IP and port. A process that plays a pod's container on this
// machine registers where it listens, one route per line in the routes file, for each
// address the Service is known by:
//
//	<cluster IP>:<port> 127.0.0.1:<port>
//	<service>.<namespace>.svc:<port> 127.0.0.1:<port>
//
// The file is read on every connection, so routes come and go without a restart. An address
// of a Service (a .svc name, or an IP in the Service CIDR) with no route is refused with 502,
// and so is any address off this machine; a loopback address is dialled directly.
//
// Usage: servicenet --socket <path> --routes <file> --service-cidr <cidr>
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	socket := flag.String("socket", "", "Unix socket to serve HTTP CONNECT on")
	routes := flag.String("routes", "", "file of '<address>:<port> <host>:<port>' lines")
	serviceCIDR := flag.String("service-cidr", "10.96.0.0/12", "the cluster's Service IP range")
	flag.Parse()
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	if *socket == "" || *routes == "" {
		logger.Error("--socket and --routes are required")
		os.Exit(2)
	}
	_, services, err := net.ParseCIDR(*serviceCIDR)
	if err != nil {
		logger.Error("--service-cidr", "error", err)
		os.Exit(2)
	}
	_ = os.Remove(*socket)
	listener, err := net.Listen("unix", *socket)
	if err != nil {
		logger.Error("listening", "socket", *socket, "error", err)
		os.Exit(1)
	}
	server := &http.Server{
		Handler:           &proxy{routes: *routes, services: services, logger: logger},
		ReadHeaderTimeout: 10 * time.Second,
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = server.Close()
	}()
	logger.Info("serving HTTP CONNECT", "socket", *socket, "routes", *routes)
	if err := server.Serve(listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("serving", "error", err)
		os.Exit(1)
	}
}

type proxy struct {
	routes   string
	services *net.IPNet
	logger   *slog.Logger
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		http.Error(w, "only CONNECT is served", http.StatusMethodNotAllowed)
		return
	}
	target, err := p.resolve(r.Host)
	if err != nil {
		p.logger.Info("refused", "address", r.Host, "reason", err.Error())
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	upstream, err := net.DialTimeout("tcp", target, 10*time.Second)
	if err != nil {
		p.logger.Info("dial failed", "address", r.Host, "target", target, "error", err.Error())
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	hijacker, ok := w.(http.Hijacker)
	if !ok {
		_ = upstream.Close()
		http.Error(w, "connection cannot be taken over", http.StatusInternalServerError)
		return
	}
	client, buffered, err := hijacker.Hijack()
	if err != nil {
		_ = upstream.Close()
		return
	}
	if _, err := client.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		_ = client.Close()
		_ = upstream.Close()
		return
	}
	p.logger.Info("connected", "address", r.Host, "target", target)
	// Bytes the client sent right after its CONNECT line are already in the buffer.
	if n := buffered.Reader.Buffered(); n > 0 {
		pending, _ := buffered.Reader.Peek(n)
		if _, err := upstream.Write(pending); err != nil {
			_ = client.Close()
			_ = upstream.Close()
			return
		}
	}
	splice(client, upstream)
}

// resolve maps a CONNECT address to where it is served on this machine.
func (p *proxy) resolve(address string) (string, error) {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return "", fmt.Errorf("address %q is not host:port", address)
	}
	want := strings.Replace(address, ".svc.cluster.local:", ".svc:", 1)
	if file, err := os.Open(p.routes); err == nil {
		defer func() { _ = file.Close() }()
		scanner := bufio.NewScanner(file)
		for scanner.Scan() {
			if fields := strings.Fields(scanner.Text()); len(fields) == 2 && fields[0] == want {
				return fields[1], nil
			}
		}
	}
	ip := net.ParseIP(host)
	if strings.HasSuffix(host, ".svc") || strings.HasSuffix(host, ".svc.cluster.local") || (ip != nil && p.services.Contains(ip)) {
		return "", fmt.Errorf("no route to Service address %s", address)
	}
	// Nothing off this machine belongs to the local cluster (kwok's node addresses are made up).
	if ip == nil || !ip.IsLoopback() {
		return "", fmt.Errorf("address %s is not on this machine", address)
	}
	return address, nil
}

// splice copies both ways until either side closes.
func splice(a, b net.Conn) {
	var wg sync.WaitGroup
	copyAndClose := func(dst, src net.Conn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src)
		_ = dst.Close()
		_ = src.Close()
	}
	wg.Add(2)
	go copyAndClose(a, b)
	go copyAndClose(b, a)
	wg.Wait()
}
