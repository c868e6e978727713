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

// Package image builds OCI images without a container engine: the controller image and the
// bundle image, as the Dockerfiles would build them, deterministically (files and the image
// stamped with the epoch, in name order).
package image

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// nonRootUser is the distroless nonroot user the controller runs as.
const nonRootUser = "65532:65532"

// epoch stamps every file and the image itself, so that the same inputs give the same digest.
var epoch = time.Unix(0, 0).UTC()

// Controller is the controller image: the static manager binary, the CA certificates and a
// non-root user, as the Dockerfile builds it.
func Controller(binary, caCerts string) (v1.Image, error) {
	manager, err := os.ReadFile(binary)
	if err != nil {
		return nil, fmt.Errorf("reading the manager binary: %w", err)
	}
	certs, err := os.ReadFile(caCerts)
	if err != nil {
		return nil, fmt.Errorf("reading the CA certificates: %w", err)
	}
	layer, err := layerOf(map[string]file{
		"manager":                           {data: manager, mode: 0o755},
		"etc/ssl/certs/ca-certificates.crt": {data: certs, mode: 0o644},
		"etc/passwd":                        {data: []byte("nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"), mode: 0o644},
		"etc/group":                         {data: []byte("nonroot:x:65532:\n"), mode: 0o644},
		"tmp/k8s-webhook-server/.keep":      {data: nil, mode: 0o644},
	})
	if err != nil {
		return nil, err
	}
	return configure(layer, v1.Config{
		User:       nonRootUser,
		Entrypoint: []string{"/manager"},
		Env:        []string{"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
		Labels:     map[string]string{"org.opencontainers.image.source": "https://github.com/kakaocloud/karpenter-provider-kakaocloud"},
	})
}

// Bundle is the bundle image: the bundle directory's files, labelled with its annotations, as
// bundle.Dockerfile builds it.
func Bundle(dir, annotations string) (v1.Image, error) {
	files := map[string]file{}
	for _, sub := range []string{"manifests", "metadata", "tests"} {
		root := filepath.Join(dir, sub)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(dir, path)
			files[filepath.ToSlash(rel)] = file{data: data, mode: 0o644}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	labels, err := readLabels(annotations)
	if err != nil {
		return nil, err
	}
	layer, err := layerOf(files)
	if err != nil {
		return nil, err
	}
	return configure(layer, v1.Config{Labels: labels})
}

// readLabels reads `key: value` lines below `annotations:` (the bundle's metadata file).
func readLabels(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	labels := map[string]string{}
	for line := range strings.SplitSeq(string(data), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ": "); ok && strings.HasPrefix(line, "  ") {
			labels[k] = strings.Trim(v, `"`)
		}
	}
	if len(labels) == 0 {
		return nil, fmt.Errorf("no annotations in %s", path)
	}
	return labels, nil
}

type file struct {
	data []byte
	mode int64
}

// layerOf is one tar layer (gzipped by go-containerregistry) of the files, in name order, owned by
// root and stamped with the epoch.
func layerOf(files map[string]file) (v1.Layer, error) {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	dirs := map[string]bool{}
	for _, name := range names {
		for dir := filepath.Dir(name); dir != "." && !dirs[dir]; dir = filepath.Dir(dir) {
			dirs[dir] = true
		}
	}
	sortedDirs := make([]string, 0, len(dirs))
	for dir := range dirs {
		sortedDirs = append(sortedDirs, dir)
	}
	sort.Strings(sortedDirs)
	for _, dir := range sortedDirs {
		mode := int64(0o755)
		if dir == "tmp" || strings.HasPrefix(dir, "tmp/") {
			mode = 0o1777 // writable scratch space under a read-only root filesystem's mounts
		}
		if err := w.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: mode, ModTime: epoch}); err != nil {
			return nil, err
		}
	}
	for _, name := range names {
		f := files[name]
		if err := w.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: f.mode, Size: int64(len(f.data)), ModTime: epoch}); err != nil {
			return nil, err
		}
		if _, err := w.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
}

func configure(layer v1.Layer, config v1.Config) (v1.Image, error) {
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Config = config
	cf.OS, cf.Architecture = "linux", "amd64"
	cf.Created = v1.Time{Time: epoch}
	return mutate.ConfigFile(img, cf)
}

// Write replaces out with an OCI image layout holding img, named ref, and prints the path
// and the image digest.
func Write(img v1.Image, out, ref string) error {
	if out == "" {
		return fmt.Errorf("--out is required")
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	path, err := layout.Write(out, empty.Index)
	if err != nil {
		return err
	}
	annotations := map[string]string{}
	if ref != "" {
		annotations["org.opencontainers.image.ref.name"] = ref
	}
	if err := path.AppendImage(img, layout.WithAnnotations(annotations)); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s %s\n", out, digest)
	return nil
}
