#!/usr/bin/env bash
# Builds actionlint (github.com/rhysd/actionlint: GitHub Actions workflows
# checked as GitHub reads them: expressions, the inputs an action declares,
# each `run:` script through shellcheck when shellcheck is on PATH) from the Go
# module proxy into .engine/bin/ (ignored by git), at the version
# tools/actionlint/go.mod pins. A second run reuses the binary (a stamp of
# go.mod, go.sum and this script beside it).
#
# Go's caches are its defaults (GOMODCACHE, GOCACHE), shared with
# tools/engine/build.sh and tools/gcs/build.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
module="$root/tools/actionlint"
bin="$root/.engine/bin"
mkdir -p "$bin"

version="$(cd "$module" && go list -m -f '{{.Version}}' github.com/rhysd/actionlint)"
stamp="$(cat "$module/go.mod" "$module/go.sum" "$0" | sha256sum | cut -d' ' -f1)"

if [[ -x "$bin/actionlint" && "$(cat "$bin/.actionlint.stamp" 2>/dev/null)" == "$stamp" ]]; then
  echo "actionlint: reusing $bin/actionlint ($version)"
else
  echo "actionlint: building $version from the Go module proxy"
  rm -f "$bin/.actionlint.stamp"
  # -X: the version `actionlint -version` prints (a module build has no VCS stamp to read it from).
  (cd "$module" && nice go build -trimpath -o "$bin/actionlint.partial" \
    -ldflags "-X github.com/rhysd/actionlint.version=$version" github.com/rhysd/actionlint/cmd/actionlint)
  mv -f "$bin/actionlint.partial" "$bin/actionlint"
  echo "$stamp" > "$bin/.actionlint.stamp"
fi
