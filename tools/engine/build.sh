#!/usr/bin/env bash
# Builds the Pulumi CLI (the engine the `engine` tests run) from the Go module
# proxy into .engine/bin/ (ignored by git), at the version tools/engine/go.mod
# requires, and writes beside it the dynamic provider host executable the CLI
# launches for pulumi.dynamic resources. A second run reuses the binary (a
# stamp of go.mod, go.sum and this script beside it): seconds.
#
# Go's caches are its defaults (GOMODCACHE, GOCACHE: `go env` says where),
# shared with every other checkout on the machine; set them to build elsewhere.
# Run with nice: the build is minutes of two cores.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
module="$root/tools/engine"
bin="$root/.engine/bin"
mkdir -p "$bin"

# The CLI's version, as the Automation API and requiredPulumiVersion read it:
# the pkg/v3 version go.mod requires.
version="$(cd "$module" && go list -m -f '{{.Version}}' github.com/pulumi/pulumi/pkg/v3)"
stamp="$(cat "$module/go.mod" "$module/go.sum" "$0" | sha256sum | cut -d' ' -f1)"  # the CLI's inputs, not the launcher's

if [[ -x "$bin/pulumi" && "$(cat "$bin/.stamp" 2>/dev/null)" == "$stamp" ]]; then
  echo "engine: reusing $bin/pulumi ($version)"
else
  echo "engine: building pulumi $version from the Go module proxy (minutes)"
  rm -f "$bin/.stamp"
  (cd "$module" && nice go build -trimpath -o "$bin/pulumi" \
    -ldflags "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$version" \
    github.com/pulumi/pulumi/pkg/v3/cmd/pulumi)
  echo "$stamp" > "$bin/.stamp"
fi

# The engine runs dynamic providers (pulumi.dynamic) as
# `pulumi-resource-pulumi-python`, found beside the pulumi binary: the release
# archive ships it, Go modules do not. Ours (tools/engine/) finds the project's
# interpreter from Pulumi.yaml's runtime options, as the released one does.
install -m 755 "$module/pulumi-resource-pulumi-python" "$bin/pulumi-resource-pulumi-python"
"$bin/pulumi" version
