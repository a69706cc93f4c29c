// A stand-in for the sriov CNI plugin on a simulated SR-IOV node. It does what sriov-cni does for a netdevice
// VF, for real, on the link that plays the VF: ADD moves the VF's netdev (named in the fake sysfs) into the
// sandbox as CNI_IFNAME and configures it from the IPAM delegate; DEL gives it back to the host under its own name.
// Run as `node sriov-cni-stand-in.ts --sysfs-root <dir> --state-dir <dir>` with the CNI protocol on env and stdin.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';

const SUPPORTED_VERSIONS = ['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'] as const;
type CniVersion = (typeof SUPPORTED_VERSIONS)[number];
const LATEST_VERSION: CniVersion = '1.1.0';

/** The spec's well-known error codes, and 999 for failures it has no code for. */
const ERROR_CODE = { incompatibleVersion: 1, invalidEnvironment: 4, decodingFailure: 6, invalidConfig: 7, other: 999 } as const;

class CniError extends Error {
  readonly code: number;
  readonly details: string;

  constructor(code: number, msg: string, details = '') {
    super(msg);
    this.code = code;
    this.details = details;
  }
}

// The fields this plugin reads; everything else in the configuration is the delegate's or the runtime's business.
const netConfSchema = z.looseObject({
  cniVersion: z.string(),
  name: z.string().min(1),
  type: z.string(),
  deviceID: z.string().optional(),
  ipam: z.looseObject({ type: z.string().optional() }).optional(),
});

interface NetConf {
  readonly cniVersion: CniVersion;
  readonly deviceID: string | undefined;
  /** Absent also for `ipam: {}`: sriov-cni delegates only when a type is named. */
  readonly ipamType: string | undefined;
}

const cidr = z.union([z.cidrv4(), z.cidrv6()]);
const ipAddress = z.union([z.ipv4(), z.ipv6()]);
// Addresses are checked here because they become `ip` arguments; routes and dns are passed on as the delegate wrote them.
const ipamResultSchema = z.looseObject({
  ips: z.array(z.looseObject({ address: cidr, gateway: ipAddress.optional() })).default([]),
  routes: z.array(z.looseObject({ dst: cidr, gw: ipAddress.optional() })).optional(),
  dns: z.looseObject({}).optional(),
});
type IpamResult = z.infer<typeof ipamResultSchema>;

const delegateErrorSchema = z.object({ code: z.number().int(), msg: z.string(), details: z.string().optional() });

/** What ADD leaves for DEL: the VF's host name, which the sandbox renamed away. */
const stateSchema = z.object({ hostIfName: z.string().min(1), deviceID: z.string(), netns: z.string() });
type State = z.infer<typeof stateSchema>;

const linkListSchema = z.array(z.looseObject({ ifname: z.string(), address: z.string().optional() }));

interface Environment {
  readonly command: 'ADD' | 'DEL' | 'CHECK';
  readonly containerId: string;
  readonly netns: string;
  readonly ifName: string;
  readonly cniPath: readonly string[];
}

interface Options {
  readonly sysfsRoot: string;
  readonly stateDir: string;
}

// skel's checks: the container ID and interface name end up in the state file's path, so they must not escape it.
const CONTAINER_ID = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
const IF_NAME = /^[^/:\s]{1,15}$/;
const PCI_ADDRESS = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/;

function describe(error: unknown): string {
  if (error instanceof Error) {
    // execFileSync's errors carry the command's stderr, which says more than "Command failed".
    const text = 'stderr' in error && typeof error.stderr === 'string' ? error.stderr.trim() : '';
    return text === '' ? error.message : text;
  }
  return String(error);
}

function ip(...args: string[]): string {
  try {
    return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    throw new CniError(ERROR_CODE.other, `ip ${args.join(' ')} failed`, describe(error));
  }
}

/** `ip -n` only takes names from /var/run/netns; a runtime may hand over any bind-mounted path. */
function ipIn(netns: string, ...args: string[]): string {
  try {
    return execFileSync('nsenter', [`--net=${netns}`, '--', 'ip', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    throw new CniError(ERROR_CODE.other, `ip ${args.join(' ')} in ${netns} failed`, describe(error));
  }
}

/**
 * A network namespace file is a mount of nsfs; after `ip netns del` (or a reboot) the path is gone or is an
 * empty placeholder. Comparing devices with our own namespace's tells the two apart without entering it.
 */
function isNetns(file: string): boolean {
  try {
    return fs.statSync(file).dev === fs.statSync('/proc/self/ns/net').dev;
  } catch {
    return false;
  }
}

function linksIn(netns: string): z.infer<typeof linkListSchema> {
  return linkListSchema.parse(JSON.parse(ipIn(netns, '-j', 'link', 'show')));
}

/** The netdev the kernel registered for the VF, as sysfs lists it: `bus/pci/devices/<pci>/net/<ifname>/`. */
function vfNetdev(sysfsRoot: string, deviceID: string): string {
  if (!PCI_ADDRESS.test(deviceID)) throw new CniError(ERROR_CODE.invalidConfig, `deviceID ${deviceID} is not a PCI address (dddd:bb:dd.f)`);
  const netDir = path.join(sysfsRoot, 'bus/pci/devices', deviceID, 'net');
  let names: string[];
  try {
    names = fs.readdirSync(netDir);
  } catch {
    throw new CniError(ERROR_CODE.invalidConfig, `VF ${deviceID} has no netdevice`, `${netDir} is not readable`);
  }
  const [name, ...rest] = names;
  if (name === undefined || rest.length > 0) throw new CniError(ERROR_CODE.invalidConfig, `VF ${deviceID} has ${names.length} netdevices, expected one`);
  return name;
}

function readEnvironment(): Environment {
  const env = (name: string): string => {
    const value = process.env[name];
    if (value === undefined || value === '') throw new CniError(ERROR_CODE.invalidEnvironment, `required env variable ${name} is missing`);
    return value;
  };
  const command = env('CNI_COMMAND');
  if (command !== 'ADD' && command !== 'DEL' && command !== 'CHECK') throw new CniError(ERROR_CODE.invalidEnvironment, `unknown CNI_COMMAND: ${command}`);
  const containerId = env('CNI_CONTAINERID');
  if (!CONTAINER_ID.test(containerId)) throw new CniError(ERROR_CODE.invalidEnvironment, `invalid characters in CNI_CONTAINERID ${containerId}`);
  const ifName = env('CNI_IFNAME');
  if (!IF_NAME.test(ifName) || ifName === '.' || ifName === '..') throw new CniError(ERROR_CODE.invalidEnvironment, `invalid CNI_IFNAME ${ifName}`);
  // DEL may come without a netns (the runtime lost it, e.g. after a reboot) and must still release the address.
  const netns = command === 'DEL' ? (process.env['CNI_NETNS'] ?? '') : env('CNI_NETNS');
  return {
    command,
    containerId,
    netns,
    ifName,
    cniPath: env('CNI_PATH')
      .split(':')
      .filter((dir) => dir !== ''),
  };
}

function readNetConf(stdin: Buffer): NetConf {
  let raw: unknown;
  try {
    raw = JSON.parse(stdin.toString('utf8'));
  } catch (error) {
    throw new CniError(ERROR_CODE.decodingFailure, 'network configuration is not JSON', describe(error));
  }
  const parsed = netConfSchema.safeParse(raw);
  if (!parsed.success) throw new CniError(ERROR_CODE.invalidConfig, 'invalid network configuration', z.prettifyError(parsed.error));
  const version = SUPPORTED_VERSIONS.find((supported) => supported === parsed.data.cniVersion);
  if (version === undefined)
    throw new CniError(
      ERROR_CODE.incompatibleVersion,
      `incompatible CNI versions: config is ${parsed.data.cniVersion}, plugin supports ${SUPPORTED_VERSIONS.join(', ')}`,
    );
  const ipamType = parsed.data.ipam?.type;
  return { cniVersion: version, deviceID: parsed.data.deviceID, ipamType: ipamType === '' ? undefined : ipamType };
}

/** libcni's delegate call: the plugin found on CNI_PATH, the caller's environment with the command replaced, the same stdin. */
function delegate(type: string, command: 'ADD' | 'DEL', env: Environment, stdin: Buffer): string {
  if (type.includes('/')) throw new CniError(ERROR_CODE.invalidConfig, `invalid IPAM plugin name ${type}`);
  const plugin = env.cniPath.map((dir) => path.join(dir, type)).find((candidate) => fs.existsSync(candidate));
  if (plugin === undefined) throw new CniError(ERROR_CODE.other, `failed to find plugin "${type}" in path [${env.cniPath.join(' ')}]`);
  const run = spawnSync(plugin, [], { input: stdin, env: { ...process.env, CNI_COMMAND: command }, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (run.error !== undefined) throw new CniError(ERROR_CODE.other, `IPAM plugin ${type} could not run`, run.error.message);
  if (run.status === 0) return run.stdout;
  let reported: z.infer<typeof delegateErrorSchema> | undefined;
  try {
    reported = delegateErrorSchema.parse(JSON.parse(run.stdout));
  } catch {
    reported = undefined;
  }
  // The delegate's own code is kept: "try again later" means the same to the runtime whoever says it.
  if (reported !== undefined) throw new CniError(reported.code, `IPAM plugin ${type} ${command} failed: ${reported.msg}`, reported.details ?? '');
  throw new CniError(ERROR_CODE.other, `IPAM plugin ${type} ${command} failed`, run.stderr.trim() || `exit status ${String(run.status)}`);
}

function parseIpamResult(type: string, stdout: string): IpamResult {
  let raw: unknown;
  try {
    raw = JSON.parse(stdout);
  } catch (error) {
    throw new CniError(ERROR_CODE.decodingFailure, `IPAM plugin ${type} printed no JSON result`, describe(error));
  }
  const parsed = ipamResultSchema.safeParse(raw);
  if (!parsed.success) throw new CniError(ERROR_CODE.decodingFailure, `IPAM plugin ${type} printed an invalid result`, z.prettifyError(parsed.error));
  return parsed.data;
}

function family(cidrAddress: string): '4' | '6' {
  return cidrAddress.includes(':') ? '6' : '4';
}

/**
 * libcni's ConfigureIface: every address on the interface, then the routes, a route without a gateway taking
 * the first gateway of its family. A route the kernel already has (a prefix route of an address) is not an error.
 */
function configureAddresses(netns: string, ifName: string, result: IpamResult): void {
  for (const ipc of result.ips) ipIn(netns, 'addr', 'add', ipc.address, 'dev', ifName);
  const gateways = new Map<string, string>();
  for (const ipc of result.ips) {
    if (ipc.gateway !== undefined && !gateways.has(family(ipc.address))) gateways.set(family(ipc.address), ipc.gateway);
  }
  for (const route of result.routes ?? []) {
    const gw = route.gw ?? gateways.get(family(route.dst));
    try {
      ipIn(netns, 'route', 'add', route.dst, ...(gw === undefined ? [] : ['via', gw]), 'dev', ifName);
    } catch (error) {
      if (!(error instanceof CniError && error.details.includes('File exists'))) throw error;
    }
  }
}

function formatResult(version: CniVersion, env: Environment, mac: string | undefined, ipam: IpamResult | undefined): object {
  // Spec 0.3.x and 0.4.0 tag each address with its family; 1.0.0 dropped the field.
  const tagged = version.startsWith('0.');
  return {
    cniVersion: version,
    interfaces: [{ name: env.ifName, ...(mac === undefined ? {} : { mac }), sandbox: env.netns }],
    ips: (ipam?.ips ?? []).map((ipc) => ({
      ...(tagged ? { version: family(ipc.address) } : {}),
      address: ipc.address,
      ...(ipc.gateway === undefined ? {} : { gateway: ipc.gateway }),
      interface: 0,
    })),
    ...(ipam?.routes === undefined ? {} : { routes: ipam.routes }),
    ...(ipam?.dns === undefined ? {} : { dns: ipam.dns }),
  };
}

function statePath(options: Options, env: Environment): string {
  return path.join(options.stateDir, `${env.containerId}-${env.ifName}`);
}

function writeState(file: string, state: State): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Renamed into place so that a DEL never reads half a file from an ADD that was killed.
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(state));
  fs.renameSync(temporary, file);
}

function readState(file: string): State | undefined {
  if (!fs.existsSync(file)) return undefined;
  let parsed: ReturnType<typeof stateSchema.safeParse>;
  try {
    parsed = stateSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch (error) {
    throw new CniError(ERROR_CODE.other, `cannot read ${file}`, describe(error));
  }
  if (!parsed.success) throw new CniError(ERROR_CODE.other, `${file} is not a state this plugin wrote`, z.prettifyError(parsed.error));
  return parsed.data;
}

/** The namespace this process runs in: the host's, where a released VF belongs. */
function hostNetns(): string {
  return `/proc/${process.pid}/ns/net`;
}

/**
 * Takes the VF back out of the sandbox under the first of `names` it has there (an ADD killed between the move
 * and the rename leaves the host name). Renamed inside first, so the host never sees a second `net1`. Moving it
 * drops its addresses and routes, as for a real VF.
 */
function returnToHost(netns: string, names: readonly string[], hostIfName: string): void {
  const present = new Set(linksIn(netns).map((link) => link.ifname));
  const current = names.find((name) => present.has(name));
  if (current === undefined) return;
  ipIn(netns, 'link', 'set', 'dev', current, 'down');
  if (current !== hostIfName) ipIn(netns, 'link', 'set', 'dev', current, 'name', hostIfName);
  ipIn(netns, 'link', 'set', 'dev', hostIfName, 'netns', hostNetns());
}

function cmdAdd(options: Options, env: Environment, conf: NetConf, stdin: Buffer): object {
  if (conf.deviceID === undefined) throw new CniError(ERROR_CODE.invalidConfig, 'deviceID is required: the PCI address of the VF');
  const hostIfName = vfNetdev(options.sysfsRoot, conf.deviceID);
  if (!isNetns(env.netns)) throw new CniError(ERROR_CODE.other, `failed to open netns ${env.netns}: not a network namespace`);
  try {
    ip('link', 'show', 'dev', hostIfName);
  } catch (error) {
    throw new CniError(ERROR_CODE.other, `VF ${conf.deviceID} netdevice ${hostIfName} is not in the host network namespace`, describe(error));
  }

  const stateFile = statePath(options, env);
  // Written before the move, so a DEL after an ADD that died half way still knows which link to give back.
  writeState(stateFile, { hostIfName, deviceID: conf.deviceID, netns: env.netns });
  try {
    // A link must be down to be renamed, and sriov-cni hands the VF over down.
    ip('link', 'set', 'dev', hostIfName, 'down');
    ip('link', 'set', 'dev', hostIfName, 'netns', env.netns);
  } catch (error) {
    fs.rmSync(stateFile, { force: true });
    throw error;
  }

  const type = conf.ipamType;
  let ipamStarted = false;
  // Tracked rather than looked up on undo: when the rename fails because the sandbox has a CNI_IFNAME of its own, that one is not ours.
  let nameInSandbox = hostIfName;
  try {
    if (hostIfName !== env.ifName) {
      ipIn(env.netns, 'link', 'set', 'dev', hostIfName, 'name', env.ifName);
      nameInSandbox = env.ifName;
    }
    ipIn(env.netns, 'link', 'set', 'dev', env.ifName, 'up');
    const mac = linksIn(env.netns).find((link) => link.ifname === env.ifName)?.address;
    let ipam: IpamResult | undefined;
    if (type !== undefined) {
      ipamStarted = true;
      ipam = parseIpamResult(type, delegate(type, 'ADD', env, stdin));
      configureAddresses(env.netns, env.ifName, ipam);
    }
    return formatResult(conf.cniVersion, env, mac, ipam);
  } catch (error) {
    // Undo what was done, and report the failure that caused it; the undo's own failures go in the details.
    const undoFailures: string[] = [];
    try {
      returnToHost(env.netns, [nameInSandbox], hostIfName);
    } catch (undo) {
      undoFailures.push(`returning ${hostIfName} to the host: ${describe(undo)}`);
    }
    if (type !== undefined && ipamStarted) {
      try {
        delegate(type, 'DEL', env, stdin);
      } catch (undo) {
        undoFailures.push(`releasing the address: ${describe(undo)}`);
      }
    }
    // Kept when the undo failed, so the runtime's DEL can still find the VF.
    if (undoFailures.length === 0) fs.rmSync(stateFile, { force: true });
    const cause = error instanceof CniError ? error : new CniError(ERROR_CODE.other, describe(error));
    throw new CniError(cause.code, cause.message, [cause.details, ...undoFailures].filter((part) => part !== '').join('; '));
  }
}

/** Idempotent: a DEL for something already released, or for a sandbox whose netns is gone, succeeds. */
function cmdDel(options: Options, env: Environment, conf: NetConf, stdin: Buffer): void {
  // The address is released first and whatever happened to the netns, as sriov-cni does; a failure here leaves
  // the VF in the sandbox for the runtime's retry.
  const type = conf.ipamType;
  if (type !== undefined) delegate(type, 'DEL', env, stdin);

  const stateFile = statePath(options, env);
  const state = readState(stateFile);
  if (state !== undefined && env.netns !== '' && isNetns(env.netns)) returnToHost(env.netns, [env.ifName, state.hostIfName], state.hostIfName);
  fs.rmSync(stateFile, { force: true });
}

function cmdCheck(env: Environment): void {
  if (!isNetns(env.netns)) throw new CniError(ERROR_CODE.other, `failed to open netns ${env.netns}: not a network namespace`);
  if (!linksIn(env.netns).some((link) => link.ifname === env.ifName)) throw new CniError(ERROR_CODE.other, `${env.ifName} is not in ${env.netns}`);
}

function readOptions(): Options {
  const { values } = parseArgs({ options: { 'sysfs-root': { type: 'string' }, 'state-dir': { type: 'string' } }, strict: true });
  const sysfsRoot = values['sysfs-root'];
  const stateDir = values['state-dir'];
  if (sysfsRoot === undefined || stateDir === undefined)
    throw new CniError(ERROR_CODE.other, 'the sriov stand-in is installed without --sysfs-root and --state-dir');
  return { sysfsRoot, stateDir };
}

function main(): void {
  let version: string = LATEST_VERSION;
  try {
    if (process.env['CNI_COMMAND'] === 'VERSION') {
      process.stdout.write(JSON.stringify({ cniVersion: LATEST_VERSION, supportedVersions: SUPPORTED_VERSIONS }));
      return;
    }
    const options = readOptions();
    const env = readEnvironment();
    const stdin = fs.readFileSync(0);
    const conf = readNetConf(stdin);
    version = conf.cniVersion;
    switch (env.command) {
      case 'ADD':
        process.stdout.write(JSON.stringify(cmdAdd(options, env, conf, stdin)));
        return;
      case 'DEL':
        cmdDel(options, env, conf, stdin);
        return;
      case 'CHECK':
        cmdCheck(env);
        return;
    }
  } catch (error) {
    const cni = error instanceof CniError ? error : new CniError(ERROR_CODE.other, describe(error));
    process.stdout.write(JSON.stringify({ cniVersion: version, code: cni.code, msg: cni.message, details: cni.details }));
    process.exitCode = 1;
  }
}

main();
