#!/usr/bin/env bash
# Builds the images a real node runs as OCI archives, without a registry or a container engine daemon, for
# `ctr -n k8s.io images import <archive>` (containerd names each image from the archive's annotations):
#   pause.tar          localhost/sriov-dra/pause:local      a static pause(): the sandbox image
#   busybox.tar        localhost/sriov-dra/busybox:local    Debian's busybox-static and its applets: the workload image
#   <app>.tar          localhost/sriov-dra/<app>:local      apps/<app>/Dockerfile of dra-driver,
#                                                           multus-live-read-proxy and node-policy-operator
#   images.json        {"<name>": {"archive", "image", "size"}} for each of the above
# pause and busybox are packed by hand (one uncompressed layer, byte-for-byte reproducible). The apps are built
# from source by buildah from the repository root with their Dockerfiles as they are (each installs the
# workspace from the lockfile and compiles it; nothing built on the host goes in), against base images made
# here and passed as build arguments: NODE_IMAGE (Debian bookworm minbase, the workspace's Node.js, the host's
# npm) and GO_IMAGE (bookworm and the host's Go toolchain), named after their versions as the Dockerfiles'
# defaults are; and SRIOV_DRA_GIT_COMMIT, `git rev-parse HEAD` with "-dirty" when the tree has changes (the stamps take HEAD alone). buildah keeps its store, layer cache and cache mounts under
# the output directory (nothing in /var/lib/containers), runs steps with chroot isolation on the host network
# (no firewall rules), and lends the builds the host's CA bundle for npm's and Go's downloads (the host may
# reach the registries through a CA Node.js does not ship). An archive is rebuilt only when the stamp of its
# inputs changes (an app's: its Dockerfile, the files it copies, the base images, the commit); the base images likewise.
#
# Usage: build-images.sh [output dir]   (default $SRIOV_DRA_CACHE/images; SRIOV_DRA_CACHE defaults to
# ~/.cache/sriov-dra). As root. Needs buildah, skopeo, debootstrap, busybox-static, gcc and Go. Environment:
# DEBIAN_MIRROR (default: apt's source of bookworm), GOPROXY and GOSUMDB (default: `go env`; passed to the
# Go build).
#        build-images.sh --check [output dir]   builds nothing: prints "<name>.tar: up to date", "out of date"
# or "missing" for each archive, as a build would judge it, and exits 1 unless all are up to date (any user;
# needs busybox-static, gcc, Go and git, whose versions the stamps hold).
#        build-images.sh --stamps   prints "<name>.tar <stamp>" for each archive: what a build would write.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${SRIOV_DRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sriov-dra}
mode=build
case ${1:-} in
  --check | --stamps)
    mode=${1#--}
    shift
    ;;
esac
out=$(realpath -m "${1:-$cache/images}")
apps=(dra-driver multus-live-read-proxy node-policy-operator)
prefix=localhost/sriov-dra
host_ca=/etc/ssl/certs/ca-certificates.crt
path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

log() { printf '[build-images] %s\n' "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}
if [ "$mode" = build ]; then
  [ "$(id -u)" = 0 ] || die "run as root (debootstrap; buildah's store)"
  tools=(buildah skopeo debootstrap gcc go git findmnt flock)
  [ -f "$host_ca" ] || die "$host_ca is missing"
else
  tools=(gcc go git flock)
fi
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null || die "$tool is not installed"
done
[ -x /bin/busybox ] || die "busybox-static is not installed"

timed() { # timed <label> <command...>: runs the command and logs its wall time
  local label=$1 start=$EPOCHREALTIME
  shift
  "$@"
  log "$label: $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f s", b - a }')"
}

hash_of() { sha256sum | cut -d' ' -f1; }

store=$out/.store
stamps=$out/.stamps
# A stamp is the hash of everything an output is made from, the text of the functions making it included.
stamped() { [ "$(cat "$stamps/$1" 2>/dev/null)" = "$2" ]; } # stamped <name> <hash>
stamp() { printf '%s\n' "$2" >"$stamps/$1"; }

export BUILDAH_ISOLATION=chroot
bah() { buildah --root "$store" --runroot "$work/run" --storage-driver overlay "$@"; }

# pack_rootfs <rootfs> <archive> <image name> <image config JSON>: a one-layer OCI archive of the directory,
# the layer uncompressed (its digest is its diff ID), every timestamp and owner fixed.
pack_rootfs() {
  local rootfs=$1 archive=$2 name=$3 config=$4 dir layer layer_size manifest
  dir=$(mktemp -d "$work/oci.XXXXXX")
  mkdir -p "$dir/blobs/sha256"
  tar -C "$rootfs" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime -cf "$dir/layer.tar" .
  layer=$(hash_of <"$dir/layer.tar")
  layer_size=$(stat -c %s "$dir/layer.tar")
  mv "$dir/layer.tar" "$dir/blobs/sha256/$layer"
  config=$(printf '{"created":"1970-01-01T00:00:00Z","architecture":"amd64","os":"linux","config":%s,"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created":"1970-01-01T00:00:00Z","created_by":"tools/images/build-images.sh"}]}' \
    "$config" "$layer")
  manifest=$(printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%d},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%d}]}' \
    "$(blob "$dir" "$config")" "${#config}" "$layer" "$layer_size")
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%d,"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"},"platform":{"architecture":"amd64","os":"linux"}}]}' \
    "$(blob "$dir" "$manifest")" "${#manifest}" "$name" "${name##*:}" >"$dir/index.json"
  printf '{"imageLayoutVersion":"1.0.0"}' >"$dir/oci-layout"
  tar -C "$dir" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf "$archive.partial" oci-layout index.json blobs
  mv "$archive.partial" "$archive"
}
blob() { # blob <layout dir> <ASCII JSON>: stores it under its digest, prints the digest
  local digest
  digest=$(printf '%s' "$2" | hash_of)
  printf '%s' "$2" >"$1/blobs/sha256/$digest"
  printf '%s' "$digest"
}

# The sandbox's process: sleeps until stopped, reaping any child it inherits.
build_pause() {
  local archive=$1 rootfs=$work/pause
  mkdir -p "$rootfs"
  cat >"$work/pause.c" <<'EOF'
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void stop(int signal) { (void)signal; _exit(0); }
static void reap(int signal) { (void)signal; while (waitpid(-1, 0, WNOHANG) > 0) {} }

int main(void) {
  signal(SIGINT, stop);
  signal(SIGTERM, stop);
  signal(SIGCHLD, reap);
  for (;;) pause();
}
EOF
  gcc -static -Os -s -o "$rootfs/pause" "$work/pause.c"
  pack_rootfs "$rootfs" "$archive" "$prefix/pause:local" '{"Env":["PATH=/"],"Entrypoint":["/pause"]}'
}

# A shell and the usual tools (ip among them) in 2 MB, with the users and the /tmp programs expect.
build_busybox() {
  local archive=$1 rootfs=$work/busybox applet
  mkdir -p "$rootfs/bin" "$rootfs/etc" "$rootfs/root"
  install -d -m 1777 "$rootfs/tmp"
  cp /bin/busybox "$rootfs/bin/busybox"
  for applet in $(/bin/busybox --list-full); do
    [ "$applet" = bin/busybox ] && continue
    mkdir -p "$rootfs/$(dirname "$applet")"
    ln -s /bin/busybox "$rootfs/$applet"
  done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
  pack_rootfs "$rootfs" "$archive" "$prefix/busybox:local" "{\"Env\":[\"PATH=$path\"],\"Cmd\":[\"sh\"]}"
}

# The mirror apt installs bookworm from here, unless DEBIAN_MIRROR names one.
debian_mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then
    printf '%s\n' "$DEBIAN_MIRROR"
    return
  fi
  # shellcheck disable=SC2016 # apt's placeholders, not shell expansions
  apt-get indextargets --format '$(SITE) $(RELEASE)' | awk '$2 == "bookworm" { print $1; exit }' | grep . ||
    die "apt has no source for bookworm: set DEBIAN_MIRROR"
}

# base_image <image> <files function> <config function>: the bookworm rootfs and what the files function
# adds to it (given the root), as one layer; the config function sets the image's configuration.
base_image() {
  local image=$1 files=$2 config=$3 container root
  container=$(bah from --pull=never scratch)
  root=$(bah mount "$container")
  cp -a "$work/bookworm/." "$root/"
  "$files" "$root"
  bah umount "$container" >/dev/null
  "$config" "$container"
  bah commit --rm --quiet "$container" "$image" >/dev/null
}

# NODE_IMAGE: the workspace's pinned Node.js and the host's npm, where the official image has them.
node_files() {
  local root=$1
  install -m 0755 "$node_binary" "$root/usr/local/bin/node"
  mkdir -p "$root/usr/local/lib/node_modules"
  cp -a "$npm_package" "$root/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  printf 'node:x:1000:1000::/home/node:/bin/bash\n' >>"$root/etc/passwd"
  printf 'node:x:1000:\n' >>"$root/etc/group"
  install -d -o 1000 -g 1000 "$root/home/node"
}
node_config() { bah config --env PATH="$path" --env NODE_VERSION="${node_version#v}" --cmd node "$1"; }

# GO_IMAGE: the host's Go toolchain at the official image's GOROOT, GOPATH /go.
go_files() {
  local root=$1
  cp -a "$go_root" "$root/usr/local/go"
  mkdir -p "$root/go/bin" "$root/go/src"
}
go_config() {
  bah config --env PATH="/go/bin:/usr/local/go/bin:$path" --env GOPATH=/go --env GOTOOLCHAIN=local \
    --env GOLANG_VERSION="${go_version#go}" --cmd bash "$1"
}

# Both base images' root: Debian bookworm minbase, without apt's downloads and lists, and without the host's
# name and resolver that debootstrap copies in (a runtime provides its own).
bookworm_rootfs() {
  debootstrap --variant=minbase bookworm "$work/bookworm" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    die "debootstrap failed: $(tail -5 "$work/debootstrap.log")"
  rm -rf "$work/bookworm/var/cache/apt/archives/"*.deb "$work/bookworm/var/lib/apt/lists/"* \
    "$work/bookworm/etc/hostname" "$work/bookworm/etc/resolv.conf"
}

# The build-context paths the Dockerfile's COPY instructions take (not those from earlier stages).
copy_sources() { sed -n 's/^COPY \+\([^-].*\) \+[^ ]\+$/\1/p' "$1" | tr ' ' '\n' | sort -u; }

# build_app <app>: apps/<app>/Dockerfile with the repository root as context, pushed as an OCI archive once its
# entrypoint has started in it.
build_app() {
  local app=$1 image=$prefix/$1:local archive=$out/$1.tar
  timed "$app: buildah bud" bud "$app" "$image"
  timed "$app: entrypoint --help in the image" starts "$app"
  rm -f "$archive.partial"
  timed "$app: buildah push" bah push --quiet "$image" "oci-archive:$archive.partial:$image" >/dev/null
  mv "$archive.partial" "$archive"
}
bud() { # bud <app> <image>
  bah bud --layers --pull=never --isolation chroot --network host \
    --build-arg NODE_IMAGE="$node_image" --build-arg GO_IMAGE="$go_image" --build-arg SRIOV_DRA_GIT_COMMIT="$commit" \
    --build-arg GOPROXY="$go_proxy" --build-arg GOSUMDB="$go_sumdb" \
    -v "$host_ca:$host_ca:ro" -v "$work/npmrc:/root/.npmrc:ro" \
    -f "apps/$1/Dockerfile" -t "$2" . >"$work/$1.log" 2>&1 ||
    die "$1: buildah bud failed: $(tail -20 "$work/$1.log")"
}

# starts <app>: the image's entrypoint answers --help with status 0, and the daemon's image runs its shim.
starts() {
  local app=$1 image=$prefix/$1:local container entrypoint
  mapfile -t entrypoint < <(bah inspect --type image --format '{{range .OCIv1.Config.Entrypoint}}{{println .}}{{end}}' "$image")
  container=$(bah from --pull=never "$image")
  bah run "$container" -- "${entrypoint[@]}" --help >"$work/$app.help" 2>&1 ||
    die "$app: \`${entrypoint[*]} --help\` failed in the image: $(tail -5 "$work/$app.help")"
  if [ "$app" = multus-live-read-proxy ]; then
    bah run "$container" -- /usr/local/lib/sriov-dra/multus-shim -version >"$work/$app.shim" 2>&1 ||
      die "$app: the image's multus-shim does not run: $(cat "$work/$app.shim")"
  fi
  bah rm "$container" >/dev/null
}

# --- stamps --------------------------------------------------------------------------------------------------
cd "$repo"
node_binary=$repo/node_modules/node/bin/node
[ -x "$node_binary" ] || die "$node_binary is missing: npm ci first"
node_version=$("$node_binary" --version)
npm_package=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
[ -f "$npm_package/package.json" ] || die "cannot find the npm package of $(command -v npm)"
go_root=$(go env GOROOT)
go_version=$(go env GOVERSION)
node_image=$prefix/node:${node_version#v}-bookworm-slim
go_image=$prefix/golang:${go_version#go}-bookworm
head=$(git rev-parse HEAD)
commit=$head
if [ -n "$(git status --porcelain)" ]; then commit=$commit-dirty; fi
go_proxy=${GOPROXY:-$(go env GOPROXY)}
go_sumdb=${GOSUMDB:-$(go env GOSUMDB)}
mirror=$(debian_mirror)
bases=$(
  declare -f bookworm_rootfs base_image node_files node_config go_files go_config
  printf '%s\n' "$mirror" "$node_version" "$npm_package" "$go_root" "$go_version"
  # Contents only: the workspace's Node.js sits under the checkout, and another clone of the same commit (CI's)
  # must find the same bases.
  sha256sum "$node_binary" "$npm_package/package.json" "$go_root/VERSION" | cut -d' ' -f1
) && bases=$(printf '%s' "$bases" | hash_of)

# stamp_of <name>: the stamp of the archive's inputs as they are now; a build and --check both judge by it.
stamp_of() {
  local inputs dockerfile=apps/$1/Dockerfile
  case $1 in
    pause | busybox)
      inputs=$(
        declare -f pack_rootfs blob "build_$1"
        if [ "$1" = pause ]; then gcc --version | head -1; else sha256sum /bin/busybox; fi
      ) || return
      ;;
    *)
      inputs=$(
        declare -f build_app bud starts
        # HEAD without "-dirty": what the image copies is hashed file by file below, so a file it does not copy
        # (a test's output in the tree) leaves it up to date; a new commit still rebuilds it for its revision label.
        printf '%s\n' "$bases" "$go_proxy" "$go_sumdb" "$head"
        cat "$dockerfile" .dockerignore
        # shellcheck disable=SC2046 # paths in this repository have no spaces
        find $(copy_sources "$dockerfile") \( -type f -o -type l \) -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
      ) || return
      ;;
  esac
  printf '%s' "$inputs" | hash_of
}
current() { [ -f "$out/$1.tar" ] && stamped "$1.tar" "$2"; } # current <name> <stamp>

if [ "$mode" = stamps ]; then
  for name in pause busybox "${apps[@]}"; do
    want=$(stamp_of "$name")
    printf '%s.tar %s\n' "$name" "$want"
  done
  exit 0
fi

if [ "$mode" = check ]; then
  # A build under way writes archives before their stamps: wait for it rather than judge half of it.
  if [ -f "$out/.lock" ]; then
    exec 9<"$out/.lock"
    flock -s -n 9 || {
      log "waiting for the build into $out"
      flock -s 9
    }
  fi
  stale=()
  for name in pause busybox "${apps[@]}"; do
    want=$(stamp_of "$name")
    if current "$name" "$want"; then
      state="up to date"
    elif [ -f "$out/$name.tar" ]; then
      state="out of date"
    else
      state=missing
    fi
    printf '%s.tar: %s\n' "$name" "$state"
    [ "$state" = "up to date" ] || stale+=("$name.tar ($state)")
  done
  [ ${#stale[@]} = 0 ] || {
    log "not up to date in $out: $(IFS=,; printf '%s' "${stale[*]}" | sed 's/,/, /g'); rebuild with: $repo/tools/images/build-images.sh $out"
    exit 1
  }
  exit 0
fi

# --- build ---------------------------------------------------------------------------------------------------
mkdir -p "$out"
# One run at a time per output directory: a second waits for the first.
exec 9>"$out/.lock"
flock -n 9 || {
  log "waiting for the other build into $out"
  flock 9
}
# buildah's temporary files, and its cache mounts (buildah-cache/), which outlive a run like the store.
export TMPDIR=$out/.tmp
mkdir -p "$stamps" "$TMPDIR"
work=$(mktemp -d)

# buildah creates these (the network backend's run directory, c/image's blob metadata cache) whatever its
# store; they go again at exit unless they were there before.
created=()
for dir in /run/containers /var/lib/containers; do [ -e "$dir" ] || created+=("$dir"); done

cleanup() {
  local status=$?
  if [ -d "$store" ]; then
    bah rm --all >/dev/null 2>&1 || true
    findmnt -rn -o TARGET | grep -E "^($store|$work)/" | sort -r | xargs -r umount -l || true
  fi
  rm -rf "$work" "$out"/*.partial
  find "$TMPDIR" -mindepth 1 -maxdepth 1 ! -name buildah-cache -exec rm -rf {} +
  for dir in "${created[@]}"; do rm -rf "$dir"; done
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
printf 'cafile=%s\n' "$host_ca" >"$work/npmrc"

# --- pause and busybox ---------------------------------------------------------------------------------------
for name in pause busybox; do
  want=$(stamp_of "$name")
  if current "$name" "$want"; then
    log "$name.tar: up to date"
  else
    timed "$name.tar" "build_$name" "$out/$name.tar"
    stamp "$name.tar" "$want"
  fi
done

# --- app images ----------------------------------------------------------------------------------------------
for app in "${apps[@]}"; do
  want=$(stamp_of "$app")
  if current "$app" "$want"; then
    log "$app.tar: up to date"
    continue
  fi
  if ! stamped bases "$bases" || ! bah inspect --type image "$node_image" >/dev/null 2>&1 ||
    ! bah inspect --type image "$go_image" >/dev/null 2>&1; then
    # Every layer in the store sits on the old base images: start it afresh.
    rm -rf "$store"
    timed "bookworm rootfs (debootstrap)" bookworm_rootfs
    timed "$node_image" base_image "$node_image" node_files node_config
    timed "$go_image" base_image "$go_image" go_files go_config
    rm -rf "$work/bookworm"
    stamp bases "$bases"
  fi
  build_app "$app"
  stamp "$app.tar" "$want"
done

# --- check and list ------------------------------------------------------------------------------------------
# check <name>: skopeo reads the archive, and its index names the image.
check() {
  local name=$1 archive=$out/$1.tar image=$prefix/$1:local layers
  layers=$(skopeo inspect --format '{{len .Layers}}' "oci-archive:$archive") || die "skopeo cannot read $archive"
  tar -xOf "$archive" index.json | grep -q "\"$image\"" || die "$archive does not name $image"
  log "$name.tar: $image, $layers layers, $(du -h "$archive" | cut -f1)"
}
checks() {
  local name entries=()
  for name in pause busybox "${apps[@]}"; do
    check "$name"
    entries+=("$(printf '"%s":{"archive":"%s","image":"%s","size":%d}' "$name" "$out/$name.tar" "$prefix/$name:local" "$(stat -c %s "$out/$name.tar")")")
  done
  (
    IFS=,
    printf '{%s}\n' "${entries[*]}"
  ) >"$out/images.json"
}
timed "archives checked (skopeo inspect)" checks
log "done in $SECONDS s: $out/images.json"
