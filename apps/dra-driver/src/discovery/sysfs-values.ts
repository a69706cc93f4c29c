import type { EswitchMode, LinkType } from './virtual-function.ts';
import { type SysfsResult, found, sysfsFailure } from './sysfs-error.ts';

/**
 * Parsers for the contents of single sysfs attribute files. Each accepts exactly the kernel's format (one
 * value and a trailing newline) and names the file when it does not, so a corrupted or unexpected entry
 * is reported instead of being read as a plausible wrong value.
 */

/** An attribute file: its absolute path (for messages) and what reading it gave. */
export interface TextEntry {
  readonly path: string;
  readonly content: SysfsResult<string>;
}

type Parser<T> = (text: string, path: string) => SysfsResult<T>;

/** A required entry: missing or unreadable is as much a failure as malformed. */
export function parseEntry<T>(entry: TextEntry, parse: Parser<T>): SysfsResult<T> {
  return entry.content.ok ? parse(entry.content.value, entry.path) : entry.content;
}

/** An entry the kernel legitimately omits: absent when missing, still a failure when unreadable or malformed. */
export function parseOptionalEntry<T>(entry: TextEntry, parse: Parser<T>): SysfsResult<T | undefined> {
  if (!entry.content.ok && entry.content.error.code === 'SysfsEntryMissing') return found(undefined);
  return parseEntry(entry, parse);
}

const HEX_ID = /^0x([0-9a-fA-F]{4})$/;
const PCI_CLASS = /^0x([0-9a-fA-F]{6})$/;
const UNSIGNED = /^(0|[1-9][0-9]{0,5})$/;
const SIGNED = /^-?(0|[1-9][0-9]{0,5})$/;

function malformed<T>(path: string, text: string, expected: string): SysfsResult<T> {
  return sysfsFailure('MalformedSysfsValue', path, `holds ${JSON.stringify(text.trim())}, expected ${expected}`);
}

/** `vendor` and `device`: `0x15b3` → `15b3` (lowercase, as published). */
export function parsePciId(text: string, path: string): SysfsResult<string> {
  const match = HEX_ID.exec(text.trim());
  return match?.[1] === undefined ? malformed(path, text, 'a 16-bit hex ID such as 0x15b3') : found(match[1].toLowerCase());
}

/** `class`: the 24-bit class code, e.g. 0x020000 for an Ethernet controller. */
export function parsePciClass(text: string, path: string): SysfsResult<number> {
  const match = PCI_CLASS.exec(text.trim());
  return match?.[1] === undefined ? malformed(path, text, 'a 24-bit class code such as 0x020000') : found(parseInt(match[1], 16));
}

/** Base class 0x02 is "network controller": Ethernet, InfiniBand and the other fabrics SR-IOV NICs report. */
export function isNetworkClass(pciClass: number): boolean {
  return pciClass >> 16 === 0x02;
}

/** `sriov_totalvfs`, `sriov_numvfs`. */
export function parseCount(text: string, path: string): SysfsResult<number> {
  const trimmed = text.trim();
  return UNSIGNED.test(trimmed) ? found(Number(trimmed)) : malformed(path, text, 'a non-negative integer');
}

/** `numa_node`: -1 means the kernel knows no affinity, which is reported as absent rather than as -1. */
export function parseNumaNode(text: string, path: string): SysfsResult<number | undefined> {
  const trimmed = text.trim();
  if (!SIGNED.test(trimmed) || Number(trimmed) < -1) return malformed(path, text, 'a NUMA node number or -1');
  const node = Number(trimmed);
  return found(node === -1 ? undefined : node);
}

/** ARPHRD values from include/uapi/linux/if_arp.h. */
const ARPHRD_ETHER = 1;
const ARPHRD_INFINIBAND = 32;

/** `net/<if>/type`: the interface's ARPHRD hardware type. */
export function parseLinkType(text: string, path: string): SysfsResult<LinkType> {
  const trimmed = text.trim();
  if (!UNSIGNED.test(trimmed)) return malformed(path, text, 'an ARPHRD number such as 1 or 32');
  const type = Number(trimmed);
  return found(type === ARPHRD_ETHER ? 'ethernet' : type === ARPHRD_INFINIBAND ? 'infiniband' : 'unknown');
}

/** RFC 2863 operational states, as the kernel spells them in `operstate`. */
const OPERSTATES = new Set(['unknown', 'notpresent', 'down', 'lowerlayerdown', 'testing', 'dormant', 'up']);

/**
 * `net/<if>/operstate` → whether the link carries traffic. "unknown" counts as up: the kernel reports it
 * for drivers that do not track carrier, whose links still pass traffic (iproute2 shows them as UNKNOWN,
 * not DOWN).
 */
export function parseOperstate(text: string, path: string): SysfsResult<boolean> {
  const state = text.trim();
  if (!OPERSTATES.has(state)) return malformed(path, text, 'an RFC 2863 operational state such as up or down');
  return found(state === 'up' || state === 'unknown');
}

/** `net/<if>/compat/devlink/mode`, which mlx5 exposes next to the devlink interface. */
export function parseEswitchMode(text: string, path: string): SysfsResult<EswitchMode> {
  const mode = text.trim();
  return mode === 'legacy' || mode === 'switchdev' ? found(mode) : malformed(path, text, 'legacy or switchdev');
}

const VIRTFN = /^virtfn(0|[1-9][0-9]{0,4})$/;

/** `virtfn7` → 7; undefined for every other entry of a PF directory. */
export function virtfnIndex(entry: string): number | undefined {
  const match = VIRTFN.exec(entry);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}
