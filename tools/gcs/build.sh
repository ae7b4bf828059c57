#!/usr/bin/env bash
# Builds fake-gcs-server (the Cloud Storage stand-in the tests start, see
# tests/gcs_emulator.py) from the Go module proxy into .engine/bin/ (ignored by
# git), at the version tools/gcs/go.mod requires. A second run reuses the
# binary (a stamp of go.mod, go.sum and this script beside it): seconds.
#
# Go's caches are its defaults (GOMODCACHE, GOCACHE: `go env` says where),
# shared with tools/engine/build.sh and every other checkout on the machine.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
module="$root/tools/gcs"
bin="$root/.engine/bin"
mkdir -p "$bin"

version="$(cd "$module" && go list -m -f '{{.Version}}' github.com/fsouza/fake-gcs-server)"
stamp="$(cat "$module/go.mod" "$module/go.sum" "$0" | sha256sum | cut -d' ' -f1)"

if [[ -x "$bin/fake-gcs-server" && "$(cat "$bin/.fake-gcs-server.stamp" 2>/dev/null)" == "$stamp" ]]; then
  echo "gcs: reusing $bin/fake-gcs-server ($version)"
else
  echo "gcs: building fake-gcs-server $version from the Go module proxy (a minute or two)"
  rm -f "$bin/.fake-gcs-server.stamp"
  # Built to a temporary name and moved: a test that finds the binary never
  # finds half of one.
  (cd "$module" && nice go build -trimpath -o "$bin/fake-gcs-server.partial" github.com/fsouza/fake-gcs-server)
  mv -f "$bin/fake-gcs-server.partial" "$bin/fake-gcs-server"
  echo "$stamp" > "$bin/.fake-gcs-server.stamp"
fi
