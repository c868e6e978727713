#!/usr/bin/env bash
# Builds a Go command at an exact module version into bin/<name>-<version>, through a small
# module that requires it: some modules (golangci-lint among them) cannot be built with
# `go install pkg@version` here, because the module proxy does not list their versions.
#
# Usage: [TAGS=<build tags>] [TOOLCHAIN=<go toolchain>] [REQUIRE="<module> <version>"] \
#          hack/build-go-tool.sh <output> <module> <version> <package>
#   e.g. hack/build-go-tool.sh bin/golangci-lint-v2.15.0 github.com/golangci/golangci-lint/v2 v2.15.0 \
#          github.com/golangci/golangci-lint/v2/cmd/golangci-lint
# TOOLCHAIN builds with another Go toolchain than the local one (the module proxy serves them),
# e.g. a linter for a module that needs a newer Go. REQUIRE raises one dependency of the module to
# the version given, e.g. the golangci-lint a linter plugin's command is built with.
set -euo pipefail

OUT="$1" MODULE="$2" VERSION="$3" PACKAGE="$4"
export GOTOOLCHAIN="${TOOLCHAIN:-local}"
[ -x "$OUT" ] && exit 0
WORK="${XDG_CACHE_HOME:-$HOME/.cache}/karpenter-provider-kakaocloud/tool-$(basename "$OUT")"
mkdir -p "$WORK" "$(dirname "$OUT")"
printf '%s build-go-tool: building %s@%s\n' "$(date -u +%H:%M:%S)" "$PACKAGE" "$VERSION" >&2
cat > "$WORK/go.mod" <<MOD
module local.invalid/tool

go $(go env GOVERSION | sed 's/^go//')

require $MODULE $VERSION
${REQUIRE:+require $REQUIRE}
MOD
cat > "$WORK/tools.go" <<GO
//go:build tools

package tools

import _ "$PACKAGE"
GO
OUT_ABS="$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")"
(cd "$WORK" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 &&
  GOFLAGS=-mod=mod go build -tags "${TAGS:-}" -ldflags "-s -w" -o "$OUT_ABS.tmp" "$PACKAGE")
mv "$OUT_ABS.tmp" "$OUT_ABS"
