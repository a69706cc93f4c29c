// A stand-in for the NVIDIA GPU DRA driver on a simulated node: it publishes the node's GPUs in a
// ResourceSlice (again whenever it is deleted, as the kubelet does to a node's slices at its start) and serves the kubelet's plugin registration and DRAPlugin v1 gRPC services on real unix
// sockets, preparing a claim by answering each allocated GPU's CDI device ID. Nothing on the host changes.
import { lstat, mkdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Server, type ServerUnaryCall, status } from '@grpc/grpc-js';
import { Informer, type KubeClient, type KubeObject, errorMessage, isApiError, readResourceClaim, resourcePath, resourceTypes } from '@sriov-dra/k8s';
import { DRA_PLUGIN_TYPE, DRA_PLUGIN_V1, bindUnixSocket, draV1, registrationV1, shutdownServer } from '@sriov-dra/kubelet-api';

export const GPU_DRIVER = 'gpu.nvidia.com';

/** The vendor and class of the CDI device IDs the NVIDIA driver hands the container runtime. */
const CDI_KIND = 'k8s.gpu.nvidia.com/device';

export interface StandInGpu {
  /** The device name in the ResourceSlice, e.g. gpu-0. */
  readonly name: string;
  /** The PCIe root complex the GPU sits below, e.g. pci0000:3a. */
  readonly pcieRoot: string;
  readonly uuid: string;
}

export interface GpuStandInOptions {
  /** Publishes the ResourceSlice and reads ResourceClaims. */
  readonly client: KubeClient;
  readonly nodeName: string;
  /** <kubelet dir>/plugins; the DRA socket is <pluginsDir>/gpu.nvidia.com/dra.sock. */
  readonly pluginsDir: string;
  /** <kubelet dir>/plugins_registry; the registration socket is <registrarDir>/gpu.nvidia.com-reg.sock. */
  readonly registrarDir: string;
  readonly gpus: readonly StandInGpu[];
}

/** What the kubelet last reported through NotifyRegistrationStatus. */
export interface RegistrationOutcome {
  readonly registered: boolean;
  readonly error: string;
}

export interface GpuStandIn {
  readonly registrationSocket: string;
  /** The endpoint GetInfo names. */
  readonly draSocket: string;
  /** Undefined until the kubelet has reported on a registration. */
  registration(): RegistrationOutcome | undefined;
  /** Devices prepared now, by claim UID (device names), as the stand-in's own record. */
  prepared(): ReadonlyMap<string, readonly string[]>;
  /** Stops republishing, closes both gRPC servers and removes their sockets; the ResourceSlice stays, as a driver's does across restarts. */
  stop(): Promise<void>;
}

function sliceFor(nodeName: string, gpus: readonly StandInGpu[]) {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name: `${nodeName}-${GPU_DRIVER}` },
    spec: {
      driver: GPU_DRIVER,
      nodeName,
      pool: { name: nodeName, generation: 1, resourceSliceCount: 1 },
      devices: gpus.map((gpu) => ({
        name: gpu.name,
        attributes: {
          type: { string: 'gpu' },
          uuid: { string: gpu.uuid },
          'resource.kubernetes.io/pcieRoot': { string: gpu.pcieRoot },
        },
      })),
    },
  };
}

/** Creates the slice, or overwrites one an earlier run left for this node, whose devices may differ. */
async function publishSlice(client: KubeClient, slice: ReturnType<typeof sliceFor>): Promise<void> {
  const type = resourceTypes.resourceSlice;
  const name = slice.metadata.name;
  try {
    await client.create(type, slice);
    return;
  } catch (error) {
    if (!isApiError(error, 'AlreadyExists')) throw error;
  }
  // A writer racing on the same slice is not expected; a few rounds absorb one that happens anyway.
  for (let attempt = 1; ; attempt++) {
    const current = await client.get(type, { name });
    try {
      await client.request({
        method: 'PUT',
        path: resourcePath(type, { name }),
        query: { fieldValidation: 'Strict' },
        body: { ...slice, metadata: { ...slice.metadata, resourceVersion: current.metadata.resourceVersion } },
        object: { kind: type.kind, name },
      });
      return;
    } catch (error) {
      if (!isApiError(error, 'Conflict') || attempt === 3) throw error;
    }
  }
}

/** Clears a socket left by an earlier run, which would make the bind fail; anything else is not ours to delete. */
async function removeSocket(path: string): Promise<void> {
  const stats = await lstat(path).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  });
  if (stats === undefined) return;
  if (!stats.isSocket()) throw new Error(`${path} exists and is not a socket`);
  await rm(path, { force: true });
}

/** Aborts the API reads of a call the kubelet gave up on. */
function cancelSignal(call: ServerUnaryCall<unknown, unknown>): AbortSignal {
  const controller = new AbortController();
  call.on('cancelled', () => {
    controller.abort();
  });
  return controller.signal;
}

export async function startGpuStandIn(options: GpuStandInOptions): Promise<GpuStandIn> {
  const { client, nodeName, gpus } = options;
  const byName = new Map(gpus.map((gpu) => [gpu.name, gpu]));
  const registrationSocket = resolve(options.registrarDir, `${GPU_DRIVER}-reg.sock`);
  const draSocket = join(resolve(options.pluginsDir, GPU_DRIVER), 'dra.sock');
  const prepared = new Map<string, readonly string[]>();
  let registration: RegistrationOutcome | undefined;

  const slice = sliceFor(nodeName, gpus);
  await publishSlice(client, slice);
  // A driver keeps its slice published: the kubelet deletes a node's slices when it starts, and a driver
  // that does not publish again leaves its devices unschedulable. One watch on this slice, no polling.
  const watching = new AbortController();
  const informer = new Informer<KubeObject>(
    client,
    resourceTypes.resourceSlice,
    {
      onDelete: () => {
        if (!watching.signal.aborted) void publishSlice(client, slice).catch(() => undefined);
      },
    },
    { fieldSelector: `metadata.name=${slice.metadata.name}`, resyncMs: 0 },
  );
  const watched = informer.run(watching.signal);

  /** The claim's devices for this driver; a throw becomes the claim's error, so the kubelet retries only it. */
  async function prepareClaim(claim: draV1.Claim, signal: AbortSignal): Promise<draV1.Device[]> {
    const stored = await readResourceClaim(client, claim.namespace, claim.name, signal).catch((error: unknown) => {
      throw isApiError(error, 'NotFound') ? new Error('the ResourceClaim does not exist') : error;
    });
    // A claim deleted and created again under the same name is another claim; its allocation is not this one's.
    if (stored.metadata.uid !== claim.uid) throw new Error(`the ResourceClaim by that name has UID ${stored.metadata.uid}`);
    const allocation = stored.status?.allocation;
    if (allocation === undefined) throw new Error('the ResourceClaim is not allocated');
    return (allocation.devices?.results ?? [])
      .filter((result) => result.driver === GPU_DRIVER)
      .map((result) => {
        const gpu = result.pool === nodeName ? byName.get(result.device) : undefined;
        if (gpu === undefined) throw new Error(`allocated device ${result.pool}/${result.device} is not a GPU of node ${nodeName}`);
        return { requestNames: [result.request], poolName: result.pool, deviceName: result.device, cdiDeviceIds: [`${CDI_KIND}=${gpu.uuid}`] };
      });
  }

  async function prepareAll(claims: readonly draV1.Claim[], signal: AbortSignal): Promise<draV1.NodePrepareResourcesResponse> {
    const answers = await Promise.all(
      claims.map(async (claim): Promise<[string, draV1.NodePrepareResourceResponse]> => {
        try {
          const devices = await prepareClaim(claim, signal);
          prepared.set(
            claim.uid,
            devices.map((device) => device.deviceName),
          );
          return [claim.uid, { devices, error: '' }];
        } catch (error) {
          return [claim.uid, { devices: [], error: `ResourceClaim ${claim.namespace}/${claim.name} (${claim.uid}): ${errorMessage(error)}` }];
        }
      }),
    );
    return { claims: Object.fromEntries(answers) };
  }

  const dra: draV1.DRAPluginServer = {
    nodePrepareResources: (call, callback) => {
      // Claims fail in their own entries; a failed call would make the kubelet discard every claim's answer.
      prepareAll(call.request.claims, cancelSignal(call)).then(
        (response) => {
          callback(null, response);
        },
        (error: unknown) => {
          callback({ code: status.INTERNAL, details: errorMessage(error) });
        },
      );
    },
    nodeUnprepareResources: (call, callback) => {
      const claims: Record<string, draV1.NodeUnprepareResourceResponse> = {};
      for (const claim of call.request.claims) {
        prepared.delete(claim.uid);
        claims[claim.uid] = { error: '' };
      }
      callback(null, { claims });
    },
  };

  const registrar: registrationV1.RegistrationServer = {
    getInfo: (_call, callback) => {
      callback(null, { type: DRA_PLUGIN_TYPE, name: GPU_DRIVER, endpoint: draSocket, supportedVersions: [DRA_PLUGIN_V1] });
    },
    notifyRegistrationStatus: (call, callback) => {
      registration = { registered: call.request.pluginRegistered, error: call.request.error };
      callback(null, {});
    },
  };

  await mkdir(dirname(draSocket), { recursive: true });
  await mkdir(dirname(registrationSocket), { recursive: true });
  await removeSocket(draSocket);
  await removeSocket(registrationSocket);
  const draServer = new Server();
  draServer.addService(draV1.DRAPluginService, dra);
  const registrationServer = new Server();
  registrationServer.addService(registrationV1.RegistrationService, registrar);
  // The registration socket's appearance is what makes the kubelet dial the endpoint, so it comes last.
  await bindUnixSocket(draServer, draSocket);
  try {
    await bindUnixSocket(registrationServer, registrationSocket);
  } catch (error) {
    draServer.forceShutdown();
    await removeSocket(draSocket);
    throw error;
  }

  let stopping: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    watching.abort();
    await watched;
    // Gone first, so the kubelet deregisters the plugin rather than calling one that is going away.
    await removeSocket(registrationSocket);
    await shutdownServer(registrationServer, 1_000);
    await shutdownServer(draServer, 5_000);
    await removeSocket(draSocket);
  };

  return {
    registrationSocket,
    draSocket,
    registration: () => registration,
    prepared: () => new Map(prepared),
    stop: () => (stopping ??= stop()),
  };
}
