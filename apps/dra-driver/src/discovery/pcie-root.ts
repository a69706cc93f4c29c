/**
 * The standard `resource.kubernetes.io/pcieRoot` value: the PCIe root complex a function sits below, as the
 * first directory under `devices/` on the real path of `bus/pci/devices/<bdf>` (the kernel names it
 * `pci<domain>:<bus>`). Devices sharing the value share a root complex, which is what the scheduler's
 * matchAttribute constraint pairs a GPU and a NIC on.
 */

const ROOT_COMPLEX = /^pci[0-9a-f]{4}:[0-9a-f]{2}$/;

/**
 * `devices/pci0000:3a/0000:3a:00.0/0000:3b:00.2` → `pci0000:3a`. Anything else (a device below a platform
 * bus, a virtual device, a path outside `devices/`) has no known root: undefined, never an empty string,
 * because a published "" would satisfy a presence check and pair unrelated devices.
 */
export function pcieRootOf(realPath: string): string | undefined {
  const [top, root, device] = realPath.split('/');
  if (top !== 'devices' || root === undefined || device === undefined) return undefined;
  return ROOT_COMPLEX.test(root) ? root : undefined;
}
