#!/usr/bin/env bash
# Builds Operator Lifecycle Manager's two operators (olm, catalog) and the registry server
# (opm) from the Go module proxy, and copies OLM's CRDs out of its module, into
#   ${OLM_ASSETS_DIR:-~/.local/share/karpenter-provider-kakaocloud/olm-<olm version>}
# for the local cluster (hack/local-up with LOCAL_CLUSTER_OLM=1). Release downloads are not
# available where this project is built, so, as with hack/build-k8s-binaries.sh, everything is
# compiled from source modules; a binary already present is reused, and each is built under a
# temporary name and moved into place.
#
# Prints the assets directory on stdout as its last line.
set -euo pipefail

OLM_VERSION="${OLM_VERSION:-0.38.0}"
REGISTRY_VERSION="${REGISTRY_VERSION:-1.61.0}"
ASSETS_DIR="${OLM_ASSETS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/karpenter-provider-kakaocloud/olm-${OLM_VERSION}}"
WORK_DIR="${OLM_BUILD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/karpenter-provider-kakaocloud/olm-build-${OLM_VERSION}}"

log() { printf '%s build-olm-binaries: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# opm's image handling links gpgme unless it is told to use the pure-Go OpenPGP
# implementation; nothing here needs signature checks, so it is built without cgo.
export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=mod" GOTOOLCHAIN=local
TAGS="containers_image_openpgp"

# Neither module can be built with `go install pkg@version` (they replace modules), so a small
# module requires both at exact versions and builds their commands.
prepare_module() {
  [ -f "$WORK_DIR/.ready" ] && return 0
  mkdir -p "$WORK_DIR"
  log "preparing a module for operator-lifecycle-manager v$OLM_VERSION and operator-registry v$REGISTRY_VERSION in $WORK_DIR"
  cat > "$WORK_DIR/go.mod" <<MOD
module local.invalid/olm-binaries

go $(go env GOVERSION | sed 's/^go//')

require (
	github.com/operator-framework/operator-lifecycle-manager v$OLM_VERSION
	github.com/operator-framework/operator-registry v$REGISTRY_VERSION
)
MOD
  cat > "$WORK_DIR/tools.go" <<'GO'
//go:build tools

package tools

import (
	_ "github.com/operator-framework/operator-lifecycle-manager/cmd/catalog"
	_ "github.com/operator-framework/operator-lifecycle-manager/cmd/olm"
	_ "github.com/operator-framework/operator-registry/cmd/opm"
)
GO
  (cd "$WORK_DIR" && go mod tidy -e >/dev/null)
  touch "$WORK_DIR/.ready"
}

mkdir -p "$ASSETS_DIR"
declare -A PACKAGES=(
  [olm]=github.com/operator-framework/operator-lifecycle-manager/cmd/olm
  [catalog]=github.com/operator-framework/operator-lifecycle-manager/cmd/catalog
  [opm]=github.com/operator-framework/operator-registry/cmd/opm
)
for name in olm catalog opm; do
  if [ -x "$ASSETS_DIR/$name" ]; then continue; fi
  prepare_module
  log "building $name"
  (cd "$WORK_DIR" && go build -tags "$TAGS" -ldflags "-s -w" -o "$ASSETS_DIR/.$name.tmp" "${PACKAGES[$name]}")
  mv "$ASSETS_DIR/.$name.tmp" "$ASSETS_DIR/$name"
done

# OLM's CRDs, as its own chart ships them.
if [ ! -f "$ASSETS_DIR/crds/.ready" ]; then
  prepare_module
  olm_dir="$(cd "$WORK_DIR" && go list -m -f '{{.Dir}}' "github.com/operator-framework/operator-lifecycle-manager")"
  rm -rf "$ASSETS_DIR/crds"
  mkdir -p "$ASSETS_DIR/crds"
  cp "$olm_dir"/deploy/chart/crds/*.yaml "$ASSETS_DIR/crds/"
  chmod 0644 "$ASSETS_DIR"/crds/*.yaml
  touch "$ASSETS_DIR/crds/.ready"
fi
echo "$ASSETS_DIR"
