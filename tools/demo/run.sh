#!/usr/bin/env bash
# npm run demo [-- --real-node]: makes what the stack needs available on a fresh Debian machine (Go from the
# module proxy, iproute2, openssl; as .ci/run does), builds the binaries it runs on into the cache outside the
# repository (once), and runs e2e/src/demo.ts: the simulated node (a kubelet simulator, the components as
# host processes). With --real-node, containerd and the kubelet run on this machine and the chart's images,
# built from the Dockerfiles (tools/images/build-images.sh), run as Pods: e2e/src/demo-real-node.ts.
# Root is needed: the node creates network namespaces and links.
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
mode=simulated
for argument in "$@"; do
  case $argument in
    --real-node) mode=real ;;
    *) echo "npm run demo: unknown argument $argument (only --real-node)" >&2; exit 2 ;;
  esac
done
if [ "$mode" = real ]; then
  for tool in runc buildah skopeo debootstrap iptables; do command -v "$tool" >/dev/null || missing+=("$tool"); done
  command -v busybox >/dev/null || missing+=(busybox-static)
  [ -f /usr/lib/x86_64-linux-gnu/libc.a ] && command -v gcc >/dev/null || missing+=(gcc libc6-dev)
fi
if [ ${#missing[@]} -gt 0 ]; then apt_install "${missing[@]}"; fi
ensure_go
tools/control-plane/build-binaries.sh stack
if [ "$mode" = real ]; then
  tools/real-node/support.sh
  tools/images/build-images.sh
  exec node --conditions=@sriov-dra/source e2e/src/demo-real-node.ts
fi
exec node --conditions=@sriov-dra/source e2e/src/demo.ts
