import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { type BindEffects, bindDriver, boundDriver, deviceDir, unbindDriver } from './driver-binding.ts';
import { NIC_MODELS, createsNetdev, createsRdmaDevice, isVfioDriver } from './nic-models.ts';
import { macAddressOf, parseBdf, predictableNetdevName, vfNetdevName } from './pci-address.ts';
import { FakeTree } from './tree.ts';

/**
 * Gives a fake sysfs tree the kernel's reaction to the writes that rebind PCI functions:
 * `bus/pci/drivers/<driver>/bind` and `unbind`, and `bus/pci/drivers_probe`, honouring each function's
 * `driver_override`. Those three files become named pipes served by this process, so the code under test
 * writes them exactly as it would write /sys (a plain `fs.writeFile`). Limits are listed in README.md.
 */

export interface KernelEmulatorOptions {
  readonly root: string;
  /** Directory standing in for /dev: a vfio-pci bind creates `vfio/<iommu group>` there. */
  readonly devRoot?: string;
  /**
   * Driver that claims a function when it is probed without an override, by `<vendor>:<device>`
   * (lowercase hex). Defaults to the PF and VF drivers of the known NIC models.
   */
  readonly defaultDrivers?: Readonly<Record<string, string>>;
}

export type WriteOutcome = 'applied' | 'rejected';

/** One write as the emulator handled it; `rejected` is where the kernel would fail the write(2). */
export interface HandledWrite {
  /** Root-relative path written. */
  readonly file: string;
  readonly value: string;
  readonly outcome: WriteOutcome;
  readonly detail: string;
}

export interface KernelEmulator {
  /** Every write handled so far, in order. The writer cannot see a rejection, so tests look here. */
  readonly writes: readonly HandledWrite[];
  /** Closes the pipes and puts plain files back, so a late writer never blocks on an unserved pipe. */
  stop(): Promise<void>;
}

const BDF_TEXT = /[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]/g;

function defaultDriverTable(): Record<string, string> {
  const table: Record<string, string> = {};
  for (const model of Object.values(NIC_MODELS)) {
    table[`${model.vendor}:${model.pfDevice}`] = model.pfDriver;
    table[`${model.vendor}:${model.vfDevice}`] = model.vfDriver;
  }
  return table;
}

/**
 * Splits what arrived on a pipe into the writes it carries. Two writes that land before the emulator reads
 * arrive as one chunk; each write is one BDF, optionally newline- or NUL-terminated.
 */
function writtenValues(chunk: string): string[] {
  return chunk
    .split(/[\n\0]/)
    .filter((token) => token.trim() !== '')
    .flatMap((token) => {
      const addresses = token.trim().match(BDF_TEXT) ?? [];
      return addresses.join('') === token.trim() ? addresses : [token.trim()];
    });
}

class Emulator implements KernelEmulator {
  readonly writes: HandledWrite[] = [];
  private readonly tree: FakeTree;
  private readonly devRoot: string | undefined;
  private readonly defaults: Readonly<Record<string, string>>;
  private readonly pipes: { readonly file: string; readonly socket: net.Socket }[] = [];

  constructor(options: KernelEmulatorOptions) {
    this.tree = new FakeTree(options.root);
    this.devRoot = options.devRoot;
    this.defaults = options.defaultDrivers ?? defaultDriverTable();
  }

  start(): void {
    const files = ['bus/pci/drivers_probe'];
    for (const driver of this.tree.list('bus/pci/drivers')) files.push(`bus/pci/drivers/${driver}/bind`, `bus/pci/drivers/${driver}/unbind`);
    for (const file of files) this.tree.remove(file);
    // Node has no mkfifo; the coreutils tool is everywhere the tests run.
    execFileSync(
      'mkfifo',
      files.map((file) => this.tree.path(file)),
    );
    for (const file of files) {
      // Read-write keeps a writer on the pipe, so readers never see end-of-file between writes and
      // writers never block in open(2).
      const fd = fs.openSync(this.tree.path(file), fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
      const socket = new net.Socket({ fd, readable: true, writable: false });
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        for (const value of writtenValues(chunk)) this.handle(file, value);
      });
      this.pipes.push({ file, socket });
    }
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.pipes.map(
        ({ socket }) =>
          new Promise<void>((resolve) => {
            socket.once('close', () => {
              resolve();
            });
            socket.destroy();
          }),
      ),
    );
    for (const { file } of this.pipes) {
      // Writing the pipe itself would block without a reader: replace it instead.
      this.tree.remove(file);
      this.tree.file(file, '');
    }
    this.pipes.length = 0;
  }

  private handle(file: string, value: string): void {
    const result = this.apply(file, value);
    this.writes.push({ file, value, ...result });
  }

  private apply(file: string, value: string): { outcome: WriteOutcome; detail: string } {
    const device = parseBdf(value) === undefined ? undefined : deviceDir(this.tree, value);
    if (device === undefined) return { outcome: 'rejected', detail: `no PCI device ${JSON.stringify(value)} (ENODEV)` };
    const current = boundDriver(this.tree, value);
    if (file === 'bus/pci/drivers_probe') {
      if (current !== undefined) return { outcome: 'applied', detail: `already bound to ${current}` };
      const driver = this.override(device) ?? this.defaultDriver(device);
      if (driver === undefined || !this.tree.exists(`bus/pci/drivers/${driver}`)) return { outcome: 'applied', detail: 'no driver matched; left unbound' };
      this.bind(device, value, driver);
      return { outcome: 'applied', detail: `bound to ${driver}` };
    }
    const [, , , driver = '', action] = file.split('/');
    if (action === 'unbind') {
      if (current !== driver) return { outcome: 'rejected', detail: `${value} is not bound to ${driver} (ENODEV)` };
      unbindDriver(this.tree, device, value, this.devRoot);
      return { outcome: 'applied', detail: `unbound from ${driver}` };
    }
    if (current !== undefined) return { outcome: 'rejected', detail: `${value} is already bound to ${current} (EBUSY)` };
    const override = this.override(device);
    const matches = override === undefined ? this.defaultDriver(device) === driver : override === driver;
    if (!matches)
      return { outcome: 'rejected', detail: `${driver} does not match ${value}${override === undefined ? '' : ` (driver_override is ${override})`} (ENODEV)` };
    this.bind(device, value, driver);
    return { outcome: 'applied', detail: `bound to ${driver}` };
  }

  /** The kernel shows an unset override as "(null)"; an empty write (or a lone newline or NUL) clears it. */
  private override(device: string): string | undefined {
    const raw = this.tree.read(`${device}/driver_override`) ?? '';
    const value = (raw.split(/[\n\0]/)[0] ?? '').trim();
    return value === '' || value === '(null)' ? undefined : value;
  }

  private defaultDriver(device: string): string | undefined {
    const id = (name: string): string => (this.tree.read(`${device}/${name}`) ?? '').trim().replace(/^0x/, '');
    return this.defaults[`${id('vendor')}:${id('device')}`];
  }

  private bind(device: string, bdf: string, driver: string): void {
    const effects: BindEffects = {
      ...(createsNetdev(driver) ? { netdev: this.netdevFor(device, bdf) } : {}),
      ...(createsRdmaDevice(driver) ? { rdmaDevice: this.freeRdmaName() } : {}),
      ...(isVfioDriver(driver)
        ? {
            vfio: {
              group: this.tree.resolve(`${device}/iommu_group`)?.split('/').at(-1) ?? '',
              ...(this.devRoot === undefined ? {} : { devRoot: this.devRoot }),
            },
          }
        : {}),
    };
    bindDriver(this.tree, device, bdf, driver, effects);
  }

  /** A VF netdev is named after its PF's and shares its link type and state, as udev and the NIC drivers do. */
  private netdevFor(device: string, bdf: string): NonNullable<BindEffects['netdev']> {
    const address = parseBdf(bdf);
    const fallback = address === undefined ? bdf : predictableNetdevName(address);
    const mac = address === undefined ? '02:00:00:00:00:01' : macAddressOf(address);
    const pf = this.tree.resolve(`${device}/physfn`);
    const pfNetdev = pf === undefined ? undefined : this.tree.list(`${pf}/net`)[0];
    if (pf === undefined || pfNetdev === undefined) return { name: fallback, type: 1, operstate: 'up', address: mac };
    const index = this.tree
      .list(pf)
      .filter((entry) => entry.startsWith('virtfn'))
      .find((entry) => this.tree.resolve(`${pf}/${entry}`) === device);
    const pfNet = `${pf}/net/${pfNetdev}`;
    return {
      name: index === undefined ? fallback : vfNetdevName(pfNetdev, Number(index.slice('virtfn'.length))),
      type: Number((this.tree.read(`${pfNet}/type`) ?? '1').trim()),
      operstate: (this.tree.read(`${pfNet}/operstate`) ?? 'up').trim(),
      address: mac,
    };
  }

  private freeRdmaName(): string {
    const taken = new Set(this.tree.list('class/infiniband'));
    let index = 0;
    while (taken.has(`mlx5_${index}`)) index++;
    return `mlx5_${index}`;
  }
}

/**
 * Serves the bind, unbind and drivers_probe pipes of the tree under `options.root` until stopped. Writes
 * are applied inside the event-loop turn that receives them; see README.md for what a writer may rely on.
 */
export function startKernelEmulator(options: KernelEmulatorOptions): KernelEmulator {
  const emulator = new Emulator(options);
  emulator.start();
  return emulator;
}
