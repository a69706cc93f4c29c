// The managed-mode device gate (§4.1, §8.1 step 2) through ManagedPreparer on a real API server: a VF that
// would not be an Ethernet kernel netdevice is refused with a stable code before any VF moves, leaving no
// checkpoint record, shadow, Pod selection or CDI spec; a binding that only shows its missing netdev once
// it holds is rolled back. Each node's fake sysfs is served by the kernel emulator.
import { describe, expect, it, jest } from '@jest/globals';
import { isSriovDraError } from '@sriov-dra/contract';
import { uniformLayout } from '../../../../tools/fake-sysfs/generate.ts';
import { DEVICES, type ManagedNode, NS, type NodeState, VFS, createWorkload, useManagedNode, vfConfig } from './managed-node.ts';

const signal = new AbortController().signal;

jest.setTimeout(60_000);

const failure = (pending: Promise<unknown>): Promise<unknown> =>
  pending.then(
    () => 'prepared',
    (error: unknown) => error,
  );

/** What a refusal before any change leaves: nothing of the claim, and every VF on the driver the node started with. */
const untouched = (host: ManagedNode): NodeState => ({
  bindings: [],
  shadows: [],
  selections: { networks: undefined, registry: [] },
  cdi: [],
  drivers: host.initialDrivers,
});

describe('a managed VF that is not a kernel netdevice', () => {
  let host: ManagedNode;
  // The first VF is on uio_pci_generic as the node starts; igb_uio and pci-stub (a kernel driver that
  // creates no netdev) are loaded for the VfConfigs to ask for.
  useManagedNode(
    (started) => {
      host = started;
    },
    {
      pfs: [
        { model: 'connectx-6', pcieRoot: 'pci0000:3a', bus: 0x3b, numaNode: 0, vfs: VFS.map((_, index) => (index === 0 ? { driver: 'uio_pci_generic' } : {})) },
      ],
      drivers: ['igb_uio', 'pci-stub'],
    },
  );

  it('refuses a claim whose VF is kept on uio_pci_generic, before its other VF is recorded or changed', async () => {
    expect(host.initialDrivers.slice(0, 2)).toEqual(['uio_pci_generic', 'mlx5_core']);
    const workload = await createWorkload(host.admin, 'uio-kept', { 'uio-kept': [DEVICES[1] ?? '', DEVICES[0] ?? ''] });
    const error = await failure((await host.open()).prepare(workload.ref('uio-kept'), signal));
    expect(isSriovDraError(error) ? error.code : error).toBe('UnsupportedDeviceState');
    expect(isSriovDraError(error) && error.message).toContain(
      `ResourceClaim ${NS}/uio-kept: VF ${VFS[0]} is bound to uio_pci_generic, a user-space I/O driver`,
    );
    expect(await host.state('uio-kept')).toEqual(untouched(host));
  });

  it.each(['uio_pci_generic', 'igb_uio'])('refuses a VfConfig that would bind a kernel-netdevice VF to %s, before the VF moves', async (driver) => {
    const name = `to-${driver.replaceAll('_', '-')}`;
    const workload = await createWorkload(host.admin, name, { [name]: [DEVICES[2] ?? ''] }, {}, [vfConfig({ driver })]);
    const error = await failure((await host.open()).prepare(workload.ref(name), signal));
    expect(isSriovDraError(error) ? error.code : error).toBe('UnsupportedDeviceState');
    expect(isSriovDraError(error) && error.detail).toBe(`VF ${VFS[2]} would be bound to ${driver}, a user-space I/O driver`);
    expect(await host.state(name)).toEqual(untouched(host));
  });

  it('rolls back and refuses a VfConfig binding to a kernel driver that exposes no netdev, and releases the Pending record on unprepare', async () => {
    const workload = await createWorkload(host.admin, 'stub', { stub: [DEVICES[3] ?? ''] }, {}, [vfConfig({ driver: 'pci-stub' })]);
    const ref = workload.ref('stub');
    const error = await failure((await host.open()).prepare(ref, signal));
    expect(isSriovDraError(error) ? error.code : error).toBe('UnsupportedDeviceState');
    expect(isSriovDraError(error) && error.detail).toBe(`VF ${VFS[3]} is bound to pci-stub, which exposes no network interface`);
    const state = await host.state('stub');
    // The record precedes any host change; nothing past it was written, and the VF is back on its driver.
    expect(state.bindings.map((binding) => [binding.phase, binding.shadowUID])).toEqual([['Pending', '']]);
    expect({ ...state, bindings: [] }).toEqual(untouched(host));

    await (await host.open()).unprepare(ref, signal);
    expect(await host.state('stub')).toEqual(untouched(host));
  });
});

describe('a managed InfiniBand VF', () => {
  let host: ManagedNode;
  useManagedNode(
    (started) => {
      host = started;
    },
    uniformLayout({ pfs: 1, vfsPerPf: VFS.length, linkType: 'infiniband' }),
  );

  it.each([
    ['no VfConfig driver', []],
    ['a VfConfig asking for vfio-pci', [vfConfig({ driver: 'vfio-pci' })]],
  ])('is refused as UnsupportedLinkType with %s, before any VF moves', async (_case, config) => {
    const name = `ib-${String(config.length)}`;
    const workload = await createWorkload(host.admin, name, { [name]: [DEVICES[0] ?? '', DEVICES[1] ?? ''] }, {}, config);
    const error = await failure((await host.open()).prepare(workload.ref(name), signal));
    expect(isSriovDraError(error) ? error.code : error).toBe('UnsupportedLinkType');
    expect(isSriovDraError(error) && error.message).toContain(`ResourceClaim ${NS}/${name}: VF ${VFS[0]} belongs to an InfiniBand PF`);
    expect(await host.state(name)).toEqual(untouched(host));
  });
});
