#!/usr/bin/env bash
# Builds Operator Lifecycle Manager's two operators (olm, catalog) and the registry server
# (opm) from the Go module proxy, and copies OLM's CRDs out of its module, into
#   ${OLM_ASSETS_DIR:-~/.local/share/karpenter-provider-kakaocloud/olm-<olm version>}
# for the local cluster (hack/local-up with LOCAL_CLUSTER_OLM=1). Release downloads are not
# available where this project is built, so, as with hack/build-k8s-binaries.sh, everything is
# compiled from source modules (hack/build-go-tool.sh); a binary already present is reused.
#
# Prints the assets directory on stdout as its last line.
set -euo pipefail

OLM_VERSION="${OLM_VERSION:-0.38.0}"
REGISTRY_VERSION="${REGISTRY_VERSION:-1.61.0}"
ASSETS_DIR="${OLM_ASSETS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/karpenter-provider-kakaocloud/olm-${OLM_VERSION}}"

# opm's image handling links gpgme unless it is told to use the pure-Go OpenPGP
# implementation; nothing here needs signature checks, so everything is built without cgo.
export CGO_ENABLED=0

mkdir -p "$ASSETS_DIR"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OLM_MODULE=github.com/operator-framework/operator-lifecycle-manager
REGISTRY_MODULE=github.com/operator-framework/operator-registry
"$HERE/build-go-tool.sh" "$ASSETS_DIR/olm" "$OLM_MODULE" "v$OLM_VERSION" "$OLM_MODULE/cmd/olm"
"$HERE/build-go-tool.sh" "$ASSETS_DIR/catalog" "$OLM_MODULE" "v$OLM_VERSION" "$OLM_MODULE/cmd/catalog"
TAGS=containers_image_openpgp "$HERE/build-go-tool.sh" "$ASSETS_DIR/opm" "$REGISTRY_MODULE" "v$REGISTRY_VERSION" "$REGISTRY_MODULE/cmd/opm"

# OLM's CRDs, as its own chart ships them.
if [ ! -f "$ASSETS_DIR/crds/.ready" ]; then
  olm_dir="$(GOFLAGS=-mod=mod go mod download -json "$OLM_MODULE@v$OLM_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [ -d "$olm_dir/deploy/chart/crds" ] || { echo "build-olm-binaries: no CRDs in $olm_dir" >&2; exit 1; }
  rm -rf "$ASSETS_DIR/crds"
  mkdir -p "$ASSETS_DIR/crds"
  cp "$olm_dir"/deploy/chart/crds/*.yaml "$ASSETS_DIR/crds/"
  chmod 0644 "$ASSETS_DIR"/crds/*.yaml
  touch "$ASSETS_DIR/crds/.ready"
fi
echo "$ASSETS_DIR"
