# Sourced by .ci/run: makes Node.js >= 20 (to bootstrap npm; the workspace then runs on its pinned
# Node.js 24) and Go >= $GO_MIN available on a fresh Debian machine, installing what is missing from
# Debian's packages, the npm registry and the Go module proxy. Bootstrapped toolchains live under
# $SRIOV_DRA_CACHE/toolchains so later runs reuse them.
GO_PINNED=${GO_PINNED:-1.26.8}
GO_MIN=${GO_MIN:-1.26}
NODE_MIN=${NODE_MIN:-20}
NODE_BOOTSTRAP=${NODE_BOOTSTRAP:-24}
toolchains=${SRIOV_DRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sriov-dra}/toolchains

apt_install() {
  if [ -z "${apt_updated:-}" ]; then apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# version_at_least <have> <want>: dotted numeric comparison.
version_at_least() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]; }

ensure_node() {
  local have
  have=$(node -p 'process.versions.node' 2>/dev/null || echo 0)
  if version_at_least "$have" "$NODE_MIN.0.0" && command -v npm >/dev/null; then return; fi
  if [ -x "$toolchains/node/node_modules/.bin/node" ]; then
    export PATH="$toolchains/node/node_modules/.bin:$PATH"
    return
  fi
  # Debian's Node.js is older than $NODE_MIN; its npm is enough to fetch a current Node.js from the npm registry.
  command -v npm >/dev/null || apt_install nodejs npm
  echo "Node.js $have is older than $NODE_MIN: installing Node.js $NODE_BOOTSTRAP from the npm registry into $toolchains/node"
  mkdir -p "$toolchains/node"
  npm install --prefix "$toolchains/node" --no-save --no-audit --no-fund "node@$NODE_BOOTSTRAP" >/dev/null
  export PATH="$toolchains/node/node_modules/.bin:$PATH"
}

go_version_of() { "$1" env GOVERSION 2>/dev/null | sed 's/^go//'; }

ensure_go() {
  local candidate version
  # Each go binary finds its own GOROOT; an inherited one may belong to another release.
  unset GOROOT
  for candidate in "$(command -v go 2>/dev/null)" /usr/local/go/bin/go "$toolchains/go/bin/go"; do
    [ -x "$candidate" ] || continue
    version=$(go_version_of "$candidate")
    if [ -n "$version" ] && version_at_least "$version" "$GO_MIN"; then
      export PATH="$(dirname "$candidate"):$PATH"
      return
    fi
  done
  # Any Go can fetch the pinned release: it is published on the module proxy as golang.org/toolchain.
  command -v go >/dev/null || apt_install golang-go ca-certificates
  local module="golang.org/toolchain@v0.0.1-go$GO_PINNED.linux-$(go env GOARCH)" dir
  echo "installing Go $GO_PINNED from the Go module proxy ($module)"
  dir=$(cd / && GOFLAGS=-modcacherw go mod download -json "$module" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
  [ -d "$dir/bin" ] || { echo "cannot download $module" >&2; return 1; }
  # Module zips carry no file modes; the go command sets these when it switches toolchains itself.
  chmod +x "$dir"/bin/* "$dir"/pkg/tool/*/*
  rm -rf "$toolchains/go"
  mkdir -p "$toolchains"
  cp -a "$dir" "$toolchains/go"
  export PATH="$toolchains/go/bin:$PATH"
}
