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

package image

import (
	"archive/tar"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// TestControllerImage writes the controller image from a stand-in binary and reads the layout
// back as a registry client would: one image, run as the non-root user with /manager as its
// entrypoint, the binary and the CA certificates in its only layer, and the same digest when
// written again from the same inputs.
func TestControllerImage(t *testing.T) {
	dir := t.TempDir()
	binary := filepath.Join(dir, "manager")
	certs := filepath.Join(dir, "ca.crt")
	for path, content := range map[string]string{binary: "#!/bin/true\n", certs: "-----BEGIN CERTIFICATE-----\n"} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	digests := map[string]bool{}
	for range 2 {
		img, err := Controller(binary, certs)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "layout")
		if err := Write(img, out, "example/controller:v1"); err != nil {
			t.Fatal(err)
		}
		index, err := layout.ImageIndexFromPath(out)
		if err != nil {
			t.Fatal(err)
		}
		manifest, err := index.IndexManifest()
		if err != nil || len(manifest.Manifests) != 1 {
			t.Fatalf("index %+v, %v: want one image", manifest, err)
		}
		read, err := index.Image(manifest.Manifests[0].Digest)
		if err != nil {
			t.Fatal(err)
		}
		config, err := read.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if config.Config.User != nonRootUser || len(config.Config.Entrypoint) != 1 || config.Config.Entrypoint[0] != "/manager" || config.OS != "linux" {
			t.Errorf("config %+v: want user %s, entrypoint /manager, linux", config.Config, nonRootUser)
		}
		layers, err := read.Layers()
		if err != nil || len(layers) != 1 {
			t.Fatalf("layers %d, %v: want one", len(layers), err)
		}
		files := map[string]int64{}
		r, err := layers[0].Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(r)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			files[h.Name] = h.Mode
		}
		if files["manager"] != 0o755 || files["etc/ssl/certs/ca-certificates.crt"] == 0 {
			t.Errorf("files %v: want an executable /manager and the CA certificates", files)
		}
		digests[manifest.Manifests[0].Digest.String()] = true
	}
	if len(digests) != 1 {
		t.Errorf("digests %v: the same inputs must give the same image", digests)
	}
}
