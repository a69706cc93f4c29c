#!/usr/bin/env bash
# npm run demo: makes what the stack needs available on a fresh Debian machine (Go from the module proxy,
# iproute2, openssl; as .ci/run does), builds the binaries it runs on into the cache outside the
# repository (once), and runs e2e/src/demo.ts. Root is needed: the simulated node creates network
# namespaces and links.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "$(id -u)" != 0 ]; then
  echo "npm run demo: run as root (the simulated node creates network namespaces and links)" >&2
  exit 1
fi
source tools/ci/toolchains.sh
missing=()
command -v ip >/dev/null || missing+=(iproute2)
command -v openssl >/dev/null || missing+=(openssl)
if [ ${#missing[@]} -gt 0 ]; then apt_install "${missing[@]}"; fi
ensure_go
tools/control-plane/build-binaries.sh stack
exec node --conditions=@sriov-dra/source e2e/src/demo.ts
