#!/usr/bin/env bash
# Whether this machine can run the real-node scenarios (kubelet + containerd + runc running the chart's
# images, E2E_NODE=real): root, cgroup v1 hierarchies or cgroup v2 to create the node's cgroup root in,
# overlayfs for containerd's snapshotter, mount namespaces, and runc, buildah, skopeo and debootstrap for
# the images. Prints one line saying so, or which requirement is missing; exit 0 when supported.
set -uo pipefail

missing=()
[ "$(id -u)" = 0 ] || missing+=("root")
[ -d /sys/fs/cgroup ] && [ -w /sys/fs/cgroup ] || missing+=("a writable /sys/fs/cgroup")
grep -qw overlay /proc/filesystems 2>/dev/null || modprobe overlay 2>/dev/null && grep -qw overlay /proc/filesystems 2>/dev/null || missing+=("overlayfs")
unshare --mount --propagation private true 2>/dev/null || missing+=("mount namespaces (unshare --mount)")
for tool in runc buildah skopeo debootstrap nsenter iptables-save; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "real node: supported (root, cgroups, overlayfs, mount namespaces, runc and the image tools)"
  exit 0
fi
echo "real node: NOT supported here, missing: ${missing[*]}"
exit 1
