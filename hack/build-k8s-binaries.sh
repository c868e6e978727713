#!/usr/bin/env bash
# Builds the Kubernetes control-plane binaries that envtest, the e2e suites and the local
# cluster need, from the Go module proxy, into the directory layout setup-envtest uses:
#   ${ENVTEST_ASSETS_DIR:-~/.local/share/kubebuilder-envtest/k8s/<version>-linux-<arch>}
# Release binaries cannot be downloaded where this project is built, so everything is compiled
# from source modules. A binary that is already present is reused; each one is built into a
# temporary name and moved into place, so an interrupted build never leaves a broken binary.
#
# Usage: hack/build-k8s-binaries.sh [binary ...]   (default: all of them)
# Prints the assets directory on stdout as its last line.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.37.2}"
ETCD_VERSION="${ETCD_VERSION:-3.6.16}"
KWOK_VERSION="${KWOK_VERSION:-0.8.0}"
GOOS="$(go env GOOS)"
GOARCH="$(go env GOARCH)"
ASSETS_DIR="${ENVTEST_ASSETS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/kubebuilder-envtest/k8s/${K8S_VERSION}-${GOOS}-${GOARCH}}"
WORK_DIR="${K8S_BUILD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/karpenter-provider-kakaocloud/k8s-build-${K8S_VERSION}}"

ALL_BINARIES=(etcd kube-apiserver kubectl kube-scheduler kube-controller-manager kwok)
if [ "$#" -gt 0 ]; then BINARIES=("$@"); else BINARIES=("${ALL_BINARIES[@]}"); fi

log() { printf '%s build-k8s-binaries: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=mod" GOTOOLCHAIN=local

# The k8s.io/kubernetes module replaces its staging modules with local paths, which only work
# inside its own repository. A small wrapper module points them at the published v0.x versions.
prepare_kubernetes_module() {
  local dir="$WORK_DIR/kubernetes" minor="${K8S_VERSION#*.}"
  local staging="v0.${minor}"
  [ -f "$dir/.ready" ] && return 0
  mkdir -p "$dir"
  log "preparing a module for k8s.io/kubernetes v${K8S_VERSION} in $dir"
  local kmod
  kmod="$(cd "$dir" && go mod download -json "k8s.io/kubernetes@v${K8S_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')"
  {
    echo "module local.invalid/k8s-binaries"
    echo
    echo "go $(sed -n 's/^go \([0-9.]*\)$/\1/p' "$kmod")"
    echo
    echo "require k8s.io/kubernetes v${K8S_VERSION}"
    echo
    echo "replace ("
    sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/src/k8s.io/.*#\t\1 => \1 '"${staging}"'#p' "$kmod"
    echo ")"
  } > "$dir/go.mod"
  cat > "$dir/tools.go" <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
  (cd "$dir" && go mod tidy -e >/dev/null)
  touch "$dir/.ready"
}

kubernetes_ldflags() {
  local major="${K8S_VERSION%%.*}" rest="${K8S_VERSION#*.}"
  local minor="${rest%%.*}" flags="-s -w" pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X ${pkg}.gitVersion=v${K8S_VERSION} -X ${pkg}.gitMajor=${major} -X ${pkg}.gitMinor=${minor}"
    flags+=" -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=1970-01-01T00:00:00Z"
  done
  echo "$flags"
}

build_kubernetes_binary() {
  local name="$1"
  prepare_kubernetes_module
  (cd "$WORK_DIR/kubernetes" && go build -ldflags "$(kubernetes_ldflags)" -o "$ASSETS_DIR/.$name.tmp" "k8s.io/kubernetes/cmd/$name")
}

build_etcd() {
  local dir="$WORK_DIR/etcd-${ETCD_VERSION}"
  if [ ! -f "$dir/.ready" ]; then
    mkdir -p "$dir"
    cat > "$dir/go.mod" <<GO
module local.invalid/etcd

go 1.25

require go.etcd.io/etcd/server/v3 v${ETCD_VERSION}
GO
    cat > "$dir/main.go" <<'GO'
// Command etcd is the etcd server, built from the etcd server module.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
    (cd "$dir" && go mod tidy >/dev/null)
    touch "$dir/.ready"
  fi
  (cd "$dir" && go build -ldflags "-s -w" -o "$ASSETS_DIR/.etcd.tmp" .)
}

build_kwok() {
  local gobin="$WORK_DIR/kwok-${KWOK_VERSION}"
  mkdir -p "$gobin"
  GOBIN="$gobin" GOFLAGS="" go install -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@v${KWOK_VERSION}"
  cp "$gobin/kwok" "$ASSETS_DIR/.kwok.tmp"
}

mkdir -p "$ASSETS_DIR" "$WORK_DIR"
# One build at a time per machine: a second caller waits, then finds the binaries present.
exec 9>"$WORK_DIR/.lock"
flock 9
for bin in "${BINARIES[@]}"; do
  if [ -x "$ASSETS_DIR/$bin" ]; then continue; fi
  start=$SECONDS
  log "building $bin (this can take several minutes on a cold cache)"
  case "$bin" in
    etcd) build_etcd ;;
    kwok) build_kwok ;;
    kube-apiserver|kubectl|kube-scheduler|kube-controller-manager) build_kubernetes_binary "$bin" ;;
    *) log "unknown binary: $bin (known: ${ALL_BINARIES[*]})"; exit 2 ;;
  esac
  mv "$ASSETS_DIR/.$bin.tmp" "$ASSETS_DIR/$bin"
  log "built $bin in $((SECONDS - start))s"
done
echo "$ASSETS_DIR"
