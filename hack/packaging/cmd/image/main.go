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

// Command image writes an OCI image layout without a container engine: the controller image
// (the static manager binary, CA certificates, a non-root user) or the bundle image (the
// bundle's files, with its labels), as the Dockerfiles would build them.
package main

import (
	"flag"
	"fmt"
	"os"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/hack/packaging/image"
)

func main() {
	kind := flag.String("kind", "controller", "controller or bundle")
	out := flag.String("out", "", "the OCI layout directory to write (replaced)")
	ref := flag.String("ref", "", "the image name recorded in the layout's index")
	binary := flag.String("binary", "", "controller: the static manager binary")
	caCerts := flag.String("ca-certificates", "/etc/ssl/certs/ca-certificates.crt", "controller: the CA bundle to include")
	bundleDir := flag.String("bundle", "bundle", "bundle: the bundle directory")
	labels := flag.String("labels", "", "bundle: the annotations file whose entries become labels")
	flag.Parse()
	var img v1.Image
	var err error
	switch *kind {
	case "controller":
		img, err = image.Controller(*binary, *caCerts)
	case "bundle":
		img, err = image.Bundle(*bundleDir, *labels)
	default:
		err = fmt.Errorf("unknown kind %q", *kind)
	}
	if err == nil {
		err = image.Write(img, *out, *ref)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}
