import { readFile } from 'node:fs/promises';
import { renderShadowConfig } from '@sriov-dra/cni-render';
import { DRIVER_NAME, type Result, SriovDraError, fail, isDns1123Label, isDns1123Subdomain, isInterfaceName, ok } from '@sriov-dra/contract';
import { errorMessage } from '@sriov-dra/k8s';
import { planShadow } from '../managed/shadow-plan.ts';
import type { SourceTemplate } from '../managed/source-template.ts';
import { runCommand } from './cli-connection.ts';
import type { Output } from './command-io.ts';
import { type NadManifest, parseNadManifest } from './nad-manifest.ts';
import { type RenderIdentity, parseRenderFlags, renderUsage } from './render-flags.ts';

/** The provenance a shadow records exists only on a NAD the API server has stored. */
function storedSource(manifest: NadManifest): Result<SourceTemplate> {
  const { namespace, name, uid, resourceVersion } = manifest.metadata;
  if (namespace === undefined || uid === undefined || resourceVersion === undefined) {
    return fail('InvalidComponentSetting', 'the manifest lacks metadata.namespace, uid or resourceVersion, which the shadow records as its source', {
      object: { kind: 'Flag', name: '--nad' },
      remedy: 'export the NAD from the cluster (kubectl get network-attachment-definitions NAME -n NAMESPACE -o yaml), or omit the identity flags',
    });
  }
  return ok({ namespace, name, uid, resourceVersion, config: manifest.spec?.config ?? '' });
}

/** Names the API server would have verified before the driver ever sees them. */
function checkNames(identity: RenderIdentity): Result<void> {
  const checks = [
    ['--node-name', identity.nodeName, isDns1123Subdomain(identity.nodeName), 'a node name'],
    ['--pod-namespace', identity.podNamespace, isDns1123Label(identity.podNamespace), 'a namespace name'],
    ['--pod-name', identity.podName, isDns1123Subdomain(identity.podName), 'a Pod name'],
  ] as const;
  for (const [flag, value, valid, what] of checks) {
    if (!valid) return fail('InvalidComponentSetting', `${JSON.stringify(value)} is not ${what}`, { object: { kind: 'Flag', name: flag } });
  }
  if (!isInterfaceName(identity.interface)) {
    return fail('InvalidInterfaceName', `${JSON.stringify(identity.interface)} is not a Linux interface name`, {
      object: { kind: 'Flag', name: '--interface' },
    });
  }
  return ok(undefined);
}

function renderShadow(source: SourceTemplate, pci: string, identity: RenderIdentity): Result<Record<string, unknown>> {
  const names = checkNames(identity);
  if (!names.ok) return names;
  const shadow = planShadow({
    node: { name: identity.nodeName, uid: identity.nodeUID },
    pod: { namespace: identity.podNamespace, name: identity.podName, uid: identity.podUID },
    claimUID: identity.claimUID,
    driver: DRIVER_NAME,
    pool: identity.pool,
    device: identity.device,
    pciAddress: pci,
    interface: identity.interface,
    source,
  });
  return shadow.ok ? ok(shadow.value.shadowNad) : shadow;
}

/** The value of a Result, or its typed error thrown for runCommand to print. */
function valueOf<T>(result: Result<T>): T {
  if (!result.ok) throw result.error;
  return result.value;
}

/**
 * `sriov-dra render`: the shadow of a source NAD for one VF, computed by the same functions NodePrepare
 * uses, so an administrator can see what a template becomes — or why it is refused — before a workload
 * is scheduled.
 */
export function renderCommand(argv: readonly string[], out: Output, err: Output): Promise<number> {
  return runCommand(err, async () => {
    if (argv.includes('--help') || argv.includes('-h')) {
      out.write(renderUsage());
      return;
    }
    const { nadPath, pci, identity } = valueOf(parseRenderFlags(argv));
    let text: string;
    try {
      text = await readFile(nadPath, 'utf8');
    } catch (error) {
      throw new SriovDraError('InvalidCommandLine', `the NAD manifest ${nadPath} cannot be read: ${errorMessage(error)}`, {
        object: { kind: 'Flag', name: '--nad' },
        remedy: 'name an existing, readable manifest file with --nad (e.g. written by kubectl get network-attachment-definitions NAME -o yaml)',
        cause: error,
      });
    }
    const manifest = valueOf(parseNadManifest(text));
    if (identity === null) {
      out.write(`${valueOf(renderShadowConfig(manifest, pci)).bytes}\n`);
      return;
    }
    out.write(`${JSON.stringify(valueOf(renderShadow(valueOf(storedSource(manifest)), pci, identity)), null, 2)}\n`);
  });
}
