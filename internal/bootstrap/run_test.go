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

package bootstrap_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// The join script runs, as a VM would run it, with the machine's own install, mkdir, chmod,
// base64, cat and sed writing under a scratch directory instead of /, the metadata service
// answered and systemctl recorded: the bootstrap kubeconfig it leaves, with the token in it, is
// root's alone, also over a world-readable one the image left, and so is the KCNodeClass's
// script.
func TestTheJoinScriptWritesItsCredentialsForRootAlone(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("runs the coreutils of a Linux VM")
	}
	o := options(nil, nil)
	o.ExtraUserData = "#!/bin/sh\ntrue\n"
	script := mustRender(t, o)
	root := t.TempDir()
	for _, dir := range []string{"etc/kubernetes", "etc/default", "var/lib"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A kubeconfig the image left, readable by anyone.
	if err := os.WriteFile(filepath.Join(root, "etc/kubernetes/bootstrap-kubelet.conf"), []byte("left by the image\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	systemctl := runScript(t, script, root)

	for path, want := range map[string]os.FileMode{
		"etc/kubernetes/bootstrap-kubelet.conf": 0o600,
		"var/lib/karpenter-extra-userdata":      0o700,
	} {
		info, err := os.Stat(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("/%s has mode %o, want %o", path, got, want)
		}
	}
	kubeconfig, err := os.ReadFile(filepath.Join(root, "etc/kubernetes/bootstrap-kubelet.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(kubeconfig), "token: "+o.Token) || strings.Contains(string(kubeconfig), "left by the image") {
		t.Errorf("the bootstrap kubeconfig is not the script's:\n%s", kubeconfig)
	}
	if want := []string{"daemon-reload", "enable kubelet", "restart kubelet"}; !slices.Equal(systemctl, want) {
		t.Errorf("systemctl was called with %q, want %q", systemctl, want)
	}
}

// runScript runs script with every absolute path under /etc and /var taken under root, and
// returns the arguments systemctl was called with.
func runScript(t *testing.T, script, root string) []string {
	t.Helper()
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "userdata")
	if err != nil {
		t.Fatal(err)
	}
	under := func(path string) string {
		if strings.HasPrefix(path, "/etc/") || strings.HasPrefix(path, "/var/") {
			return filepath.Join(root, path)
		}
		return path
	}
	var systemctl []string
	var stderr strings.Builder
	runner, err := interp.New(
		interp.StdIO(nil, io.Discard, &stderr),
		interp.OpenHandler(func(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
			return interp.DefaultOpenHandler()(ctx, under(path), flag, perm)
		}),
		interp.ExecHandlers(func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
			return func(ctx context.Context, args []string) error {
				switch name := under(args[0]); {
				case name == "curl":
					_, err := fmt.Fprintln(interp.HandlerCtx(ctx).Stdout, `{"uuid": "0f8e6c1a-7d2b-4c55-9a43-1b2c3d4e5f60", "name": "default-abcde"}`)
					return err
				case name == "systemctl":
					systemctl = append(systemctl, strings.Join(args[1:], " "))
					return nil
				case slices.Contains([]string{"install", "mkdir", "chmod", "base64", "cat", "sed"}, name) || name == under("/var/lib/karpenter-extra-userdata"):
					mapped := []string{name}
					for _, arg := range args[1:] {
						mapped = append(mapped, under(arg))
					}
					return next(ctx, mapped)
				default:
					return fmt.Errorf("the script runs %q, which a test of it does not expect", args[0])
				}
			}
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := runner.Run(ctx, file); err != nil {
		t.Fatalf("the script failed: %v\n%s\nscript:\n%s", err, stderr.String(), script)
	}
	return systemctl
}
