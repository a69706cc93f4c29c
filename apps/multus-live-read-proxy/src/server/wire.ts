import { goFoldEqual } from '@sriov-dra/cni-render';
import { z } from 'zod';
import { DaemonServerError } from './daemon-server-error.ts';

/**
 * The upstream multus-shim's side of the daemon socket (multus-cni v4 `pkg/server/api`): the socket
 * file name, the endpoints, the request body the shim posts and the answers it decodes. Everything
 * here is what the unchanged shim binary speaks; nothing is ours to extend.
 */

/** `<socketDir>/multus.sock`, the name api.SocketPath joins to the shim's daemonSocketDir. */
export const SOCKET_NAME = 'multus.sock';

export const CNI_ENDPOINT = '/cni';
export const DELEGATE_ENDPOINT = '/delegate';
/** The shim polls this (POST, body `null`) before ADD/CHECK/GC/STATUS and probes it once before DEL. */
export const HEALTH_ENDPOINT = '/healthz';
export const READY_ENDPOINT = '/readyz';

// Go's encoding/base64 StdEncoding: padded, and its decoder skips CR and LF anywhere in the input.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const LINE_BREAKS = /[\r\n]/g;

/** The stdin bytes as Go's encoding/json writes a []byte: standard padded base64. */
export const goBytesSchema = z
  .string()
  .transform((text) => text.replace(LINE_BREAKS, ''))
  .refine((text) => BASE64.test(text), { error: 'is not standard padded base64, which is how Go encodes []byte' })
  .transform((text) => Buffer.from(text, 'base64'));

/** api.DelegateInterfaceAttributes, sent only to /delegate (hot-plug). */
export const interfaceAttributesSchema = z.object({
  ips: z.array(z.string()).nullish(),
  mac: z.string().optional(),
  'cni-args': z.record(z.string(), z.unknown()).nullish(),
});

/**
 * api.Request as the shim marshals it: `env` is the shim's whole process environment, `config` its
 * stdin. Both are omitempty, and Go decodes `null` into an empty map or slice, so each may be absent
 * or null. Unknown members are ignored, as Go ignores them.
 */
export const shimRequestSchema = z.object({
  env: z.record(z.string(), z.string()).nullish(),
  config: goBytesSchema.nullish(),
  interfaceAttributes: interfaceAttributesSchema.nullish(),
});

export interface ShimRequest {
  readonly env: Readonly<Record<string, string>>;
  /** The exact bytes the runtime wrote to the shim's stdin. */
  readonly config: Buffer;
  readonly interfaceAttributes: z.infer<typeof interfaceAttributesSchema> | undefined;
}

const REQUEST_FIELDS = ['env', 'config', 'interfaceAttributes'] as const;

/**
 * Go matches each member name to a struct field exactly or case-insensitively, and of repeated
 * members the last wins, as it does for JSON.parse. Two differently spelled members naming one field
 * would leave the meaning to their order, so that is refused instead of guessed.
 */
function canonicalMembers(document: Record<string, unknown>, subject: string): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const seenAs = new Map<string, string>();
  for (const [key, value] of Object.entries(document)) {
    const field = REQUEST_FIELDS.find((name) => goFoldEqual(name, key));
    if (field === undefined) continue;
    const earlier = seenAs.get(field);
    if (earlier !== undefined) {
      throw new DaemonServerError('MalformedCniRequest', subject, `members "${earlier}" and "${key}" both name the field ${field}`);
    }
    seenAs.set(field, key);
    fields[field] = value;
  }
  return fields;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join('.');
  return path === '' ? issue.message : `${path} ${issue.message}`;
}

function parseBody(body: Buffer, subject: string): unknown {
  try {
    // Invalid UTF-8 becomes U+FFFD, as Go's decoder replaces it.
    return JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new DaemonServerError('MalformedCniRequest', subject, `the body is not valid JSON: ${(error as Error).message}`);
  }
}

/** Decodes a POST body from the shim; every way it can be wrong is a MalformedCniRequest naming the spot. */
export function decodeShimRequest(body: Buffer, subject: string): ShimRequest {
  const document = parseBody(body, subject);
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new DaemonServerError('MalformedCniRequest', subject, 'the body is not a JSON object');
  }
  const checked = shimRequestSchema.safeParse(canonicalMembers(document as Record<string, unknown>, subject));
  if (!checked.success) {
    throw new DaemonServerError('MalformedCniRequest', subject, checked.error.issues.map(describeIssue).join('; '));
  }
  return {
    env: checked.data.env ?? {},
    config: checked.data.config ?? Buffer.alloc(0),
    interfaceAttributes: checked.data.interfaceAttributes ?? undefined,
  };
}

/**
 * The CNI 1.0.0 result the shim decodes into cni100.Result before printing it in the requested
 * version. Only the members whose decoding can fail in Go are checked; the rest pass through.
 */
export const cniResultSchema = z
  .object({
    cniVersion: z.string().optional(),
    interfaces: z.array(z.looseObject({ name: z.string(), mac: z.string().optional(), sandbox: z.string().optional() })).nullish(),
    ips: z.array(z.looseObject({ address: z.string(), gateway: z.string().optional(), interface: z.number().int().nonnegative().optional() })).nullish(),
    routes: z.array(z.looseObject({ dst: z.string(), gw: z.string().optional() })).nullish(),
    dns: z.looseObject({}).optional(),
  })
  .loose();

/**
 * The ADD answer, `{"Result": …}` with Go's capitalised field name. The shim dereferences Result
 * unconditionally, so an ADD without a usable result must be refused here rather than sent.
 */
export function encodeAddResponse(result: unknown, subject: string): string {
  const checked = cniResultSchema.safeParse(result);
  if (!checked.success) {
    throw new DaemonServerError('InvalidCniResult', subject, `the ADD result is not a CNI 1.0.0 result: ${checked.error.issues.map(describeIssue).join('; ')}`);
  }
  return JSON.stringify({ Result: result });
}
