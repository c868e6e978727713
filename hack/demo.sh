#!/usr/bin/env bash
# The main job on a new machine: brings a local cluster up (building what it needs), walks the
# product documents' scenarios with hack/demo while printing a timeline, and tears the cluster
# down, also when a scenario fails (DEMO_KEEP_CLUSTER=1 keeps it, with its logs).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
log() { printf '%s demo: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
START=$SECONDS
DIR="${DEMO_CLUSTER_DIR:-$ROOT/.local-cluster-demo}"

teardown() {
  local status=$?
  if [ "${DEMO_KEEP_CLUSTER:-}" = 1 ]; then
    log "the cluster is kept: export KUBECONFIG=$DIR/kubeconfig; LOCAL_CLUSTER_DIR=$DIR make local-down stops it"
  else
    LOCAL_CLUSTER_DIR="$DIR" hack/local-down
  fi
  [ "$status" = 0 ] || log "the operator's log is $DIR/logs/operator.log (DEMO_KEEP_CLUSTER=1 keeps it)"
  log "done in $((SECONDS - START))s"
  exit "$status"
}
trap teardown EXIT

log "building the control plane (cached after the first run) and bringing the local cluster up"
hack/build-k8s-binaries.sh >/dev/null
LOCAL_CLUSTER_DIR="$DIR" LOCAL_CLUSTER_PORT_BASE="${LOCAL_CLUSTER_PORT_BASE:-$((20000 + RANDOM % 12000))}" hack/local-up >/dev/null
# shellcheck disable=SC1091
source "$DIR/cluster.env"
export KUBECONFIG KAKAOCLOUD_EMULATOR_URL
go run ./hack/demo "$@"
