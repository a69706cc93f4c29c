import { changeCachedGateways } from '../cni/result-cache-gateway.ts';
import { toResult100, type CniResult } from '../cni/result-version.ts';
import type { RuntimeConf } from '../cni/runtime-conf.ts';
import { addDefaultRoutes, deleteDefaultRoutes } from '../cni/sandbox-routes.ts';
import { type GatewayPlan, defaultRouteChange } from './default-route.ts';
import { DefaultRouteError } from './default-route-error.ts';

/** The libcni network name of a delegate's configuration: its cache entry is filed under it. */
function networkName(bytes: string): string {
  const name = (JSON.parse(bytes) as { name?: unknown }).name;
  return typeof name === 'string' ? name : '';
}

/**
 * After one delegate's ADD: its interface's default routes in the sandbox and its libcni cache entry, as the
 * delegate's gateway plan says (upstream's gateway block of CmdAdd). A failure is typed and fails the ADD.
 */
export async function applyDefaultRoute(
  plan: GatewayPlan,
  delegate: { readonly name: string; readonly bytes: string },
  result: CniResult,
  rt: RuntimeConf,
  chrootDir: string,
  signal: AbortSignal,
): Promise<void> {
  const change = defaultRouteChange(plan, toResult100(result));
  if (change === undefined) return;
  const subject = `network ${delegate.name} interface ${rt.ifName} in ${rt.netns}`;
  const target = { netns: rt.netns, ifName: rt.ifName, chrootDir, signal };
  try {
    await deleteDefaultRoutes(target);
    await addDefaultRoutes(target, change.gateways);
  } catch (error) {
    throw new DefaultRouteError(
      'DefaultRouteChangeFailed',
      subject,
      `could not ${change.gateways.length > 0 ? `set its default route via ${change.gateways.join(', ')}` : 'remove its default routes'}: ${(error as Error).message}`,
      error,
    );
  }
  try {
    await changeCachedGateways(networkName(delegate.bytes), rt, change);
  } catch (error) {
    throw new DefaultRouteError('DefaultRouteCacheUpdateFailed', subject, `could not update the libcni cache entry: ${(error as Error).message}`, error);
  }
}
