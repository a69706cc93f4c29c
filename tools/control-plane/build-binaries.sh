#!/usr/bin/env bash
# Builds the real components the tests run against, from the Go module proxy, into a cache outside the
# repository:
#   $SRIOV_DRA_CACHE/k8s/<version>/bin   etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl
#   $SRIOV_DRA_CACHE/cni/bin             containernetworking plugins and whereabouts (its CRDs in cni/whereabouts-crds)
#   $SRIOV_DRA_CACHE/peers/bin           go-peers: the real Multus/libcni decoders for the differential tests
#   $SRIOV_DRA_CACHE/kubelet-peer/bin    kubelet-peer: the kubelet's DRA plugin client for the wire tests
#   $SRIOV_DRA_CACHE/pod-resources-peer/bin  pod-resources: the kubelet's PodResources v1 server for the Multus
#                                        daemon's resourceName tests
#   $SRIOV_DRA_CACHE/multus/bin          upstream multus-shim and multus-daemon (thick mode) for the daemon's wire tests,
#                                        and delegate-runner (upstream's libcni delegate calls, timed) for its benchmark
#   $SRIOV_DRA_CACHE/helm/bin            Helm v4: the chart tests render, lint and install with it
#   $SRIOV_DRA_CACHE/node/bin            a real node: the kubelet (K8S_VERSION), containerd v2 with ctr and
#                                        containerd-shim-runc-v2 (runc itself comes from Debian)
# Each set is rebuilt only when its stamp is missing. Sources are resolved in throwaway modules under a
# temporary directory; nothing upstream is copied into the repository.
#
# Usage: build-binaries.sh [k8s|cni|peers|kubelet-peer|pod-resources-peer|multus|helm|node|stack|all] (default all). `k8s` builds K8S_VERSION alone;
# `stack` what the running stack needs (npm run demo); `all` also builds every release a test names explicitly (pinned_k8s_versions below). Environment:
# K8S_VERSION (v1.36.3), ETCD_VERSION (for K8S_VERSION only; by default each release's pinned etcd),
# CNI_PLUGINS_VERSION, WHEREABOUTS_VERSION, HELM_VERSION, CONTAINERD_VERSION.
set -euo pipefail

what=${1:-all}
cache=${SRIOV_DRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sriov-dra}
k8s_version=${K8S_VERSION:-v1.36.3}
# Releases that tests start by name whatever K8S_VERSION says: v1.36.3 and v1.37.2, whose allocators store
# class configs differently (apps/dra-driver/test/allocation-config.spec.ts).
pinned_k8s_versions=(v1.36.3 v1.37.2)
cni_plugins_version=${CNI_PLUGINS_VERSION:-v1.10.0}
whereabouts_version=${WHEREABOUTS_VERSION:-v0.9.2}
helm_version=${HELM_VERSION:-v4.3.1}
containerd_version=${CONTAINERD_VERSION:-v2.4.2}
export CGO_ENABLED=0 GOFLAGS=-mod=mod

log() { printf '[build-binaries] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
command -v go >/dev/null || die "go is not installed (Go >= 1.26 is required)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

timed() { # timed <label> <command...>
  local label=$1 start=$SECONDS
  shift
  "$@"
  log "$label built in $((SECONDS - start)) s"
}

# The go.mod of k8s.io/kubernetes replaces every staging module with a local path that does not exist
# outside its repository; map each one to the published module of the matching v0 version instead.
k8s_module() { # k8s_module <dir> <version> [<etcd version>]
  local dir=$1 version=$2 minor
  minor=${version#v1.}
  go mod download -json "k8s.io/kubernetes@$version" >"$dir.json"
  local gomod
  gomod=$(sed -n 's/^\s*"GoMod": "\(.*\)",$/\1/p' "$dir.json")
  [ -f "$gomod" ] || die "cannot download k8s.io/kubernetes@$version"
  (
    cd "$dir"
    go mod init sriov-dra.invalid/k8s-build >/dev/null 2>&1
    go mod edit -go="$(sed -n 's/^go \(.*\)$/\1/p' "$gomod")" -require="k8s.io/kubernetes@$version"
    sed -n 's#^\s*\(k8s.io/[^ ]*\) => ./staging/.*$#\1#p' "$gomod" | while read -r module; do
      go mod edit -replace="$module=$module@v0.$minor"
    done
  )
  etcd_version=${3:-$(sed -n 's#^\s*go.etcd.io/etcd/server/v3 \(v[^ ]*\).*$#\1#p' "$gomod")}
  [ -n "$etcd_version" ] || die "cannot find the etcd version pinned by Kubernetes $version"
}

build_k8s() { # build_k8s <version> [<etcd version>]
  local version=$1 out=$cache/k8s/$1 src=$work/k8s-$1
  if [ -f "$out/stamp" ]; then log "Kubernetes $version: cached in $out"; return; fi
  mkdir -p "$src" "$out/bin"
  k8s_module "$src" "$version" "${2:-}"
  local minor=${version#v1.}; minor=${minor%%.*}
  local pkg=k8s.io/component-base/version client=k8s.io/client-go/pkg/version ldflags="-s -w"
  for p in $pkg $client; do
    ldflags+=" -X $p.gitVersion=$version -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  log "Kubernetes $version (etcd $etcd_version) into $out"
  (cd "$src" && timed "kube-apiserver, kube-controller-manager, kube-scheduler, kubectl" \
    go build -trimpath -ldflags "$ldflags" -o "$out/bin/" \
      k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
      k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl)
  # etcd's own main module carries replace directives, so build its entry point from a two-line main.
  mkdir -p "$work/etcd-$version"
  (
    cd "$work/etcd-$version"
    go mod init sriov-dra.invalid/etcd-build >/dev/null 2>&1
    printf 'package main\n\nimport (\n\t"os"\n\n\t"go.etcd.io/etcd/server/v3/etcdmain"\n)\n\nfunc main() { etcdmain.Main(os.Args) }\n' >main.go
    go get "go.etcd.io/etcd/server/v3@$etcd_version" >/dev/null 2>&1
    timed etcd go build -trimpath -ldflags "-s -w" -o "$out/bin/etcd" .
  )
  printf 'kubernetes=%s\netcd=%s\ngo=%s\n' "$version" "$etcd_version" "$(go env GOVERSION)" >"$out/stamp"
}

# K8S_VERSION (with ETCD_VERSION if set), then each pinned release that differs from it.
build_all_k8s() {
  build_k8s "$k8s_version" "${ETCD_VERSION:-}"
  local version
  for version in "${pinned_k8s_versions[@]}"; do
    if [ "$version" != "$k8s_version" ]; then build_k8s "$version"; fi
  done
}

build_cni() {
  local out=$cache/cni
  # The stamp names the layout too: a cache from before the Whereabouts CRDs were kept is rebuilt.
  local id="plugins=$cni_plugins_version whereabouts=$whereabouts_version layout=2"
  if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$id" ]; then log "CNI plugins: cached in $out"; return; fi
  mkdir -p "$work/cni" "$out/bin"
  (
    cd "$work/cni"
    go mod init sriov-dra.invalid/cni-build >/dev/null 2>&1
    go get "github.com/containernetworking/plugins@$cni_plugins_version" >/dev/null 2>&1
    local base=github.com/containernetworking/plugins/plugins
    timed "CNI plugins $cni_plugins_version" go build -trimpath -ldflags "-s -w" -o "$out/bin/" \
      $base/ipam/host-local $base/ipam/static $base/meta/tuning $base/main/loopback $base/main/dummy $base/main/bridge
  )
  mkdir -p "$work/wa"
  (
    cd "$work/wa"
    go mod init sriov-dra.invalid/whereabouts-build >/dev/null 2>&1
    go get "github.com/k8snetworkplumbingwg/whereabouts@$whereabouts_version" >/dev/null 2>&1
    timed "whereabouts $whereabouts_version" go build -trimpath -ldflags "-s -w" -o "$out/bin/whereabouts" \
      github.com/k8snetworkplumbingwg/whereabouts/cmd
    # Whereabouts keeps its allocations in its own CRDs; the end-to-end node installs them from here.
    local crds
    crds="$(go list -m -f '{{.Dir}}' github.com/k8snetworkplumbingwg/whereabouts)/doc/crds"
    mkdir -p "$out/whereabouts-crds"
    cp "$crds/whereabouts.cni.cncf.io_ippools.yaml" "$crds/whereabouts.cni.cncf.io_overlappingrangeipreservations.yaml" "$out/whereabouts-crds/"
    chmod 644 "$out"/whereabouts-crds/*.yaml
  )
  printf '%s' "$id" >"$out/stamp"
}

# Our own Go program (tools/go-peers), built in place against the module versions its committed go.mod
# and go.sum pin. The stamp records a hash of its sources, which the differential tests compare to
# refuse a stale binary.
peers_sources() {
  local src=$1
  (cd "$src" && LC_ALL=C cat go.mod go.sum $(LC_ALL=C ls -- *.go)) | sha256sum | cut -d' ' -f1
}

build_peers() {
  local out=$cache/peers src
  src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../go-peers" && pwd)
  local id
  id="sources=$(peers_sources "$src")
go=$(go env GOVERSION)"
  if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$id" ]; then log "go-peers: cached in $out"; return; fi
  mkdir -p "$out/bin"
  (cd "$src" && timed go-peers go build -trimpath -ldflags "-s -w" -o "$out/bin/go-peers" .)
  printf '%s\n' "$id" >"$out/stamp"
}

# tools/kubelet-peer: the kubelet's registration and DRA plugin client code, built the same way; its go.mod
# pins k8s.io/kubernetes and maps the staging modules as k8s_module does.
build_kubelet_peer() {
  local out=$cache/kubelet-peer src
  src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../kubelet-peer" && pwd)
  local id
  id="sources=$(peers_sources "$src")
go=$(go env GOVERSION)"
  if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$id" ]; then log "kubelet-peer: cached in $out"; return; fi
  mkdir -p "$out/bin"
  (cd "$src" && timed kubelet-peer go build -trimpath -ldflags "-s -w" -o "$out/bin/kubelet-peer" .)
  printf '%s\n' "$id" >"$out/stamp"
}

# tools/pod-resources-peer: the kubelet's PodResources server code at the release kubelet-peer pins, in a
# module of its own (the server package needs k8s.io/cri-client, which kubelet-peer's go.sum does not hold).
build_pod_resources_peer() {
  local out=$cache/pod-resources-peer src
  src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../pod-resources-peer" && pwd)
  local id
  id="sources=$(peers_sources "$src")
go=$(go env GOVERSION)"
  if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$id" ]; then log "pod-resources-peer: cached in $out"; return; fi
  mkdir -p "$out/bin"
  (cd "$src" && timed pod-resources-peer go build -trimpath -ldflags "-s -w" -o "$out/bin/pod-resources" .)
  printf '%s\n' "$id" >"$out/stamp"
}

# tools/multus-peer: a go.mod/go.sum that pin the upstream Multus module as tool dependencies, so both
# thick-mode commands are built unchanged at that version, and delegate-runner (ours: upstream's libcni
# delegate calls, timed, for the daemon benchmark) built against the same pins.
build_multus() {
  local out=$cache/multus src
  src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../multus-peer" && pwd)
  local id
  id="sources=$(cd "$src" && LC_ALL=C cat go.mod go.sum delegate-runner/*.go | sha256sum | cut -d' ' -f1)
go=$(go env GOVERSION)"
  if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$id" ]; then log "Multus: cached in $out"; return; fi
  mkdir -p "$out/bin"
  local base=gopkg.in/k8snetworkplumbingwg/multus-cni.v4/cmd
  (
    cd "$src"
    timed multus-shim go build -trimpath -ldflags "-s -w" -o "$out/bin/multus-shim" $base/multus-shim
    timed multus-daemon go build -trimpath -ldflags "-s -w" -o "$out/bin/multus-daemon" $base/multus-daemon
    timed delegate-runner go build -trimpath -ldflags "-s -w" -o "$out/bin/delegate-runner" ./delegate-runner
  )
  printf '%s\n' "$id" >"$out/stamp"
}

build_helm() {
  local out=$cache/helm id="helm=$helm_version"
  if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$id" ]; then log "Helm: cached in $out"; return; fi
  mkdir -p "$work/helm" "$out/bin"
  (
    cd "$work/helm"
    go mod init sriov-dra.invalid/helm-build >/dev/null 2>&1
    go get "helm.sh/helm/v4@$helm_version" >/dev/null 2>&1
    # The version `helm version` prints is otherwise only the minor release.
    timed "Helm $helm_version" go build -trimpath -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$helm_version" \
      -o "$out/bin/helm" helm.sh/helm/v4/cmd/helm
  )
  printf '%s' "$id" >"$out/stamp"
}

# The real node (E2E_NODE=real): the kubelet from the same throwaway module as the control plane, so a warm
# Go build cache makes it cheap, and containerd, which builds from its own module with no replace directives.
build_node() {
  local out=$cache/node id="kubelet=$k8s_version containerd=$containerd_version"
  if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$id" ]; then log "kubelet, containerd: cached in $out"; return; fi
  local src=$work/kubelet-$k8s_version
  mkdir -p "$src" "$out/bin"
  k8s_module "$src" "$k8s_version"
  local minor=${k8s_version#v1.}; minor=${minor%%.*}
  local ldflags="-s -w" p
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $p.gitVersion=$k8s_version -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  (cd "$src" && timed "kubelet $k8s_version" go build -trimpath -ldflags "$ldflags" -o "$out/bin/" k8s.io/kubernetes/cmd/kubelet)
  mkdir -p "$work/containerd"
  (
    cd "$work/containerd"
    go mod init sriov-dra.invalid/containerd-build >/dev/null 2>&1
    go get "github.com/containerd/containerd/v2@$containerd_version" >/dev/null 2>&1
    local base=github.com/containerd/containerd/v2/cmd
    timed "containerd $containerd_version" go build -trimpath \
      -ldflags "-s -w -X github.com/containerd/containerd/v2/version.Version=$containerd_version" \
      -o "$out/bin/" $base/containerd $base/ctr $base/containerd-shim-runc-v2
  )
  printf '%s' "$id" >"$out/stamp"
}

case $what in
  k8s) build_k8s "$k8s_version" "${ETCD_VERSION:-}" ;;
  cni) build_cni ;;
  peers) build_peers ;;
  kubelet-peer) build_kubelet_peer ;;
  pod-resources-peer) build_pod_resources_peer ;;
  multus) build_multus ;;
  helm) build_helm ;;
  node) build_node ;;
  # What the stack itself runs on (npm run demo): no second Kubernetes release, no differential peers.
  stack) build_k8s "$k8s_version" "${ETCD_VERSION:-}"; build_cni; build_kubelet_peer; build_multus; build_helm; build_node ;;
  all) build_all_k8s; build_cni; build_peers; build_kubelet_peer; build_pod_resources_peer; build_multus; build_helm; build_node ;;
  *) die "unknown target $what (k8s, cni, peers, kubelet-peer, pod-resources-peer, multus, helm, node, stack or all)" ;;
esac
log "done: $cache"
