import { parseArgs } from 'node:util';
import { type Result, fail, isDns1123Label, ok } from '@sriov-dra/contract';
import type { ValidateOptions } from './validate-manifests.ts';

/** The subcommand's name on the operator's command line. */
export const VALIDATE_COMMAND = 'validate';

/** The upstream operator's install namespace, home of its default policy. */
export const DEFAULT_OPERATOR_NAMESPACE = 'sriov-network-operator';

export interface ValidateFlags extends ValidateOptions {
  readonly paths: readonly string[];
}

export function validateUsage(): string {
  return `Usage: node-policy-operator ${VALIDATE_COMMAND} -f FILE|DIR [-f FILE|DIR ...] [flags]

Checks SriovNetworkNodePolicy and SriovNetwork manifests offline with the rules of the operator's
admission webhook, e.g. in a GitOps pipeline. Prints one line per finding:
  <file>: <Kind> <namespace>/<name>: <field>: <code>: <problem> — <remedy>
Exit status: 0 when every object passes, 1 when an object has findings, 2 when an input cannot be read
or parsed (named on stderr) or the command line is wrong.

  -f, --filename FILE|DIR
      a manifest file (multi-document YAML or JSON), or a directory searched for .yaml, .yml and .json
      files; repeatable
  -n, --namespace NAMESPACE [default default]
      the namespace of objects that state none, as with kubectl apply -n
  --operator-namespace NAMESPACE [default ${DEFAULT_OPERATOR_NAMESPACE}]
      the operator's namespace: home of the default policy, the only place a SriovNetwork may set networkNamespace
`;
}

function flagError(flag: string, detail: string): Result<never> {
  return fail('InvalidComponentSetting', detail, { object: { kind: 'Flag', name: flag } });
}

export function parseValidateFlags(argv: readonly string[]): Result<ValidateFlags> {
  let values: { filename?: string[]; namespace?: string; 'operator-namespace'?: string };
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        filename: { type: 'string', short: 'f', multiple: true },
        namespace: { type: 'string', short: 'n' },
        'operator-namespace': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    // Duck-typed: parseArgs's TypeError may come from another realm (a test VM), where instanceof Error fails.
    const message = typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string' ? error.message : String(error);
    return fail('InvalidComponentSetting', message, { remedy: `run ${VALIDATE_COMMAND} --help for the flags` });
  }
  const paths = values.filename ?? [];
  if (paths.length === 0 || paths.includes('')) return flagError('--filename', 'name at least one manifest file or directory with -f');
  const namespace = values.namespace ?? 'default';
  if (!isDns1123Label(namespace)) return flagError('--namespace', `${JSON.stringify(namespace)} is not a namespace name`);
  const operatorNamespace = values['operator-namespace'] ?? DEFAULT_OPERATOR_NAMESPACE;
  if (!isDns1123Label(operatorNamespace)) return flagError('--operator-namespace', `${JSON.stringify(operatorNamespace)} is not a namespace name`);
  return ok({ paths, namespace, operatorNamespace });
}
