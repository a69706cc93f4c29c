import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { mkdir, mkdtemp, readFile, readlink, rm, symlink, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';

/**
 * A minimal kernel for the binder: the real fs.writeFile is wrapped so that writes to `bind`, `unbind`
 * and `drivers_probe` under the fake sysfs root act as the kernel's do (and fail as write(2) would),
 * while everything else, driver_override included, stays a plain file.
 */
const realFs = await import('node:fs/promises');
const writes: string[] = [];
/** Root-relative files whose writes the kernel accepts without acting on them (a probe that never completes). */
const ineffective = new Set<string>();
let sysfs = '';
const DEFAULT_DRIVER_OF: Readonly<Record<string, string>> = { '0000:3b:02.0': 'iavf', '0000:3b:02.1': 'iavf' };

function kernelError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: emulated kernel refusal`), { code });
}

async function boundTo(bdf: string): Promise<string | null> {
  return readlink(join(sysfs, 'bus/pci/devices', bdf, 'driver')).then(basename, () => null);
}

async function link(bdf: string, driver: string): Promise<void> {
  await symlink(join('../../drivers', driver), join(sysfs, 'bus/pci/devices', bdf, 'driver'));
}

async function override(bdf: string): Promise<string | null> {
  const value = (await readFile(join(sysfs, 'bus/pci/devices', bdf, 'driver_override'), 'utf8')).trim();
  return value === '' || value === '(null)' ? null : value;
}

async function emulatedWrite(path: string, data: string): Promise<void> {
  const file = relative(sysfs, path);
  writes.push(`${file} <- ${JSON.stringify(data)}`);
  const parts = file.split('/');
  if (ineffective.has(file)) return;
  if (file === 'bus/pci/drivers_probe') {
    if ((await boundTo(data)) !== null) return;
    const driver = (await override(data)) ?? DEFAULT_DRIVER_OF[data];
    if (driver !== undefined) await link(data, driver);
    return;
  }
  if (parts[2] === 'drivers' && (parts[4] === 'bind' || parts[4] === 'unbind')) {
    const driver = parts[3] ?? '';
    await realFs.access(path).catch(() => {
      throw kernelError('ENOENT');
    });
    const current = await boundTo(data);
    if (parts[4] === 'unbind') {
      if (current !== driver) throw kernelError('ENODEV');
      await unlink(join(sysfs, 'bus/pci/devices', data, 'driver'));
      return;
    }
    if (current !== null) throw kernelError('EBUSY');
    if (((await override(data)) ?? DEFAULT_DRIVER_OF[data]) !== driver) throw kernelError('ENODEV');
    await link(data, driver);
    return;
  }
  await realFs.writeFile(path, data);
}

jest.unstable_mockModule('node:fs/promises', () => ({
  ...realFs,
  writeFile: (path: string, data: string) => (sysfs !== '' && path.startsWith(sysfs) ? emulatedWrite(path, data) : realFs.writeFile(path, data)),
}));

const { DriverBinder } = await import('./driver-binding.ts');
const { isHostOperationError } = await import('./host-operation-error.ts');

const VF = '0000:3b:02.0';

async function device(bdf: string, driver: string | null, driverOverride = '(null)\n'): Promise<void> {
  await mkdir(join(sysfs, 'bus/pci/devices', bdf), { recursive: true });
  await realFs.writeFile(join(sysfs, 'bus/pci/devices', bdf, 'driver_override'), driverOverride);
  if (driver !== null) await link(bdf, driver);
}

let binder: InstanceType<typeof DriverBinder>;

beforeEach(async () => {
  sysfs = await mkdtemp(join(tmpdir(), 'sysfs-'));
  for (const driver of ['iavf', 'vfio-pci']) {
    await mkdir(join(sysfs, 'bus/pci/drivers', driver), { recursive: true });
    await realFs.writeFile(join(sysfs, 'bus/pci/drivers', driver, 'bind'), '');
    await realFs.writeFile(join(sysfs, 'bus/pci/drivers', driver, 'unbind'), '');
  }
  await realFs.writeFile(join(sysfs, 'bus/pci/drivers_probe'), '');
  writes.length = 0;
  ineffective.clear();
  binder = new DriverBinder({ sysfsRoot: sysfs, settleTimeoutMs: 50 });
});

afterEach(async () => {
  await rm(sysfs, { recursive: true, force: true });
  sysfs = '';
});

describe('DriverBinder.ensureDriver', () => {
  it('keeps the current binding for "" and writes nothing', async () => {
    await device(VF, 'iavf');
    await expect(binder.ensureDriver(VF, '')).resolves.toEqual({ originalDriver: 'iavf', preparedDriver: 'iavf' });
    expect(writes).toEqual([]);
  });

  it('rebinds in the kernel\u2019s order: override, unbind, bind, clear the override', async () => {
    await device(VF, 'iavf');
    await expect(binder.ensureDriver(VF, 'vfio-pci')).resolves.toEqual({ originalDriver: 'iavf', preparedDriver: 'vfio-pci' });
    expect(writes).toEqual([
      'bus/pci/devices/0000:3b:02.0/driver_override <- "vfio-pci"',
      'bus/pci/drivers/iavf/unbind <- "0000:3b:02.0"',
      'bus/pci/drivers/vfio-pci/bind <- "0000:3b:02.0"',
      'bus/pci/devices/0000:3b:02.0/driver_override <- "\\n"',
    ]);
    expect([await boundTo(VF), await override(VF)]).toEqual(['vfio-pci', null]);
  });

  it('binds an unbound function without an unbind', async () => {
    await device(VF, null);
    await expect(binder.ensureDriver(VF, 'vfio-pci')).resolves.toEqual({ originalDriver: null, preparedDriver: 'vfio-pci' });
    expect(writes).toEqual([
      'bus/pci/devices/0000:3b:02.0/driver_override <- "vfio-pci"',
      'bus/pci/drivers/vfio-pci/bind <- "0000:3b:02.0"',
      'bus/pci/devices/0000:3b:02.0/driver_override <- "\\n"',
    ]);
  });

  it('writes nothing when the function is already bound as wanted', async () => {
    await device(VF, 'vfio-pci');
    await expect(binder.ensureDriver(VF, 'vfio-pci')).resolves.toEqual({ originalDriver: 'vfio-pci', preparedDriver: 'vfio-pci' });
    expect(writes).toEqual([]);
  });

  it('only clears an override a crash left behind after the bind', async () => {
    await device(VF, 'vfio-pci', 'vfio-pci\n');
    await binder.ensureDriver(VF, 'vfio-pci');
    expect(writes).toEqual(['bus/pci/devices/0000:3b:02.0/driver_override <- "\\n"']);
  });

  it('"default" unbinds a user-space I/O driver and lets the kernel probe', async () => {
    await device(VF, 'vfio-pci');
    await expect(binder.ensureDriver(VF, 'default')).resolves.toEqual({ originalDriver: 'vfio-pci', preparedDriver: 'iavf' });
    expect(writes).toEqual(['bus/pci/drivers/vfio-pci/unbind <- "0000:3b:02.0"', 'bus/pci/drivers_probe <- "0000:3b:02.0"']);
  });

  it('"default" clears an override first, so the probe is not steered by it', async () => {
    await device(VF, null, 'vfio-pci\n');
    await expect(binder.ensureDriver(VF, 'default')).resolves.toEqual({ originalDriver: null, preparedDriver: 'iavf' });
    expect(writes).toEqual(['bus/pci/devices/0000:3b:02.0/driver_override <- "\\n"', 'bus/pci/drivers_probe <- "0000:3b:02.0"']);
  });

  it('"default" keeps a kernel driver that is already bound', async () => {
    await device(VF, 'iavf');
    await expect(binder.ensureDriver(VF, 'default')).resolves.toEqual({ originalDriver: 'iavf', preparedDriver: 'iavf' });
    expect(writes).toEqual([]);
  });

  it('fails with the device and path when the driver is not loaded, and puts the original driver back', async () => {
    await device(VF, 'iavf');
    const error = await binder.ensureDriver(VF, 'mlx5_core').catch((caught: unknown) => caught);
    expect(isHostOperationError(error) ? [error.code, error.subject, error.path] : error).toEqual([
      'DriverBindingFailed',
      VF,
      join(sysfs, 'bus/pci/drivers/mlx5_core/bind'),
    ]);
    expect(writes).toEqual([
      'bus/pci/devices/0000:3b:02.0/driver_override <- "mlx5_core"',
      'bus/pci/drivers/iavf/unbind <- "0000:3b:02.0"',
      'bus/pci/drivers/mlx5_core/bind <- "0000:3b:02.0"',
      'bus/pci/devices/0000:3b:02.0/driver_override <- "iavf"',
      'bus/pci/drivers/iavf/bind <- "0000:3b:02.0"',
      'bus/pci/devices/0000:3b:02.0/driver_override <- "\\n"',
    ]);
    expect([await boundTo(VF), await override(VF)]).toEqual(['iavf', null]);
  });

  it('puts the original driver back when the verification of the binding it ended up with fails', async () => {
    await device(VF, 'iavf');
    const refusal = new Error('vfio-pci exposes no network interface');
    const seen: (string | null)[] = [];
    const verify = (driver: string | null): Promise<void> => {
      seen.push(driver);
      return Promise.reject(refusal);
    };
    await expect(binder.ensureDriver(VF, 'vfio-pci', verify)).rejects.toBe(refusal);
    expect(seen).toEqual(['vfio-pci']);
    expect(writes.slice(4)).toEqual([
      'bus/pci/devices/0000:3b:02.0/driver_override <- "iavf"',
      'bus/pci/drivers/vfio-pci/unbind <- "0000:3b:02.0"',
      'bus/pci/drivers/iavf/bind <- "0000:3b:02.0"',
      'bus/pci/devices/0000:3b:02.0/driver_override <- "\\n"',
    ]);
    expect([await boundTo(VF), await override(VF)]).toEqual(['iavf', null]);
  });

  it('fails naming driver_override when it cannot be written', async () => {
    await device(VF, 'iavf');
    await rm(join(sysfs, 'bus/pci/devices', VF, 'driver_override'));
    await mkdir(join(sysfs, 'bus/pci/devices', VF, 'driver_override'));
    const error = await binder.ensureDriver(VF, 'vfio-pci').catch((caught: unknown) => caught);
    expect(isHostOperationError(error) ? [error.code, error.subject, error.path] : error).toEqual([
      'DriverBindingFailed',
      VF,
      join(sysfs, 'bus/pci/devices', VF, 'driver_override'),
    ]);
    expect(await boundTo(VF)).toBe('iavf');
  });

  it('refuses an address that is not a canonical PCI address before touching sysfs', async () => {
    const error = await binder.ensureDriver('../../../etc', 'vfio-pci').catch((caught: unknown) => caught);
    expect(isHostOperationError(error, 'DriverBindingFailed') ? error.subject : error).toBe('../../../etc');
    expect(writes).toEqual([]);
  });
});

describe('DriverBinder.netdevs', () => {
  it('lists the network interfaces under the function, and none when the driver created none', async () => {
    await device(VF, 'iavf');
    expect(await binder.netdevs(VF)).toEqual([]);
    await mkdir(join(sysfs, 'bus/pci/devices', VF, 'net', 'enp59s0f0v0'), { recursive: true });
    expect(await binder.netdevs(VF)).toEqual(['enp59s0f0v0']);
  });
});

describe('DriverBinder.restoreDriver', () => {
  it('binds the original driver back in the kernel\u2019s order', async () => {
    await device(VF, 'vfio-pci');
    await binder.restoreDriver(VF, 'iavf');
    expect(writes).toEqual([
      'bus/pci/devices/0000:3b:02.0/driver_override <- "iavf"',
      'bus/pci/drivers/vfio-pci/unbind <- "0000:3b:02.0"',
      'bus/pci/drivers/iavf/bind <- "0000:3b:02.0"',
      'bus/pci/devices/0000:3b:02.0/driver_override <- "\\n"',
    ]);
    expect(await boundTo(VF)).toBe('iavf');
  });

  it('leaves a function unbound that was unbound before prepare', async () => {
    await device(VF, 'vfio-pci');
    await binder.restoreDriver(VF, null);
    expect(writes).toEqual(['bus/pci/drivers/vfio-pci/unbind <- "0000:3b:02.0"']);
    expect(await boundTo(VF)).toBeNull();
  });

  it('is idempotent: a second restore writes nothing', async () => {
    await device(VF, 'vfio-pci');
    await binder.restoreDriver(VF, 'iavf');
    writes.length = 0;
    await binder.restoreDriver(VF, 'iavf');
    await binder.restoreDriver('0000:3b:02.1', null).catch(() => undefined);
    expect(writes).toEqual([]);
  });

  it('reports an outcome it can only observe: an unbind the kernel accepted but did not carry out', async () => {
    await device(VF, 'vfio-pci');
    ineffective.add('bus/pci/drivers/vfio-pci/unbind');
    const error = await binder.restoreDriver(VF, null).catch((caught: unknown) => caught);
    expect(isHostOperationError(error) ? [error.code, error.subject, error.path] : error).toEqual([
      'DriverBindingFailed',
      VF,
      join(sysfs, 'bus/pci/devices', VF, 'driver'),
    ]);
    expect((error as Error).message).toContain('did not unbind from vfio-pci (bound: vfio-pci)');
  });

  it('reports a probe that binds nothing', async () => {
    await device('0000:3b:02.7', 'vfio-pci');
    const error = await binder.ensureDriver('0000:3b:02.7', 'default').catch((caught: unknown) => caught);
    expect((error as Error).message).toContain('0000:3b:02.7: was probed but no kernel driver claimed it');
  });
});
