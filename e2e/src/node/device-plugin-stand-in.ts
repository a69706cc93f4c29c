// A stand-in for the SR-IOV network device plugin on a node with a real kubelet: it serves the kubelet's
// device plugin API v1beta1 on a socket of its own in the kubelet's device-plugins directory, registers its
// extended resource through the kubelet's Registration service, and lists a fixed set of VFs (their PCI
// addresses as device IDs, as the SR-IOV device plugin names them). Allocate changes nothing on the host:
// the VF reaches a Pod only through a NAD whose resourceName names this resource.
import { lstat, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Metadata, Server, type ServerWritableStream, credentials } from '@grpc/grpc-js';
import { bindUnixSocket, devicePluginV1beta1, shutdownServer } from '@sriov-dra/kubelet-api';

/** The kubelet's device-plugins directory: fixed in the kubelet (pluginapi.DevicePluginPath), whatever its root directory. */
export const DEVICE_PLUGIN_DIR = '/var/lib/kubelet/device-plugins';

/** The API version the kubelet accepts in RegisterRequest.version. */
const API_VERSION = 'v1beta1';

export interface DevicePluginStandInOptions {
  /** The extended resource, e.g. sriov-dra.example/legacy_vf: a domain other than kubernetes.io, then a qualified name. */
  readonly resourceName: string;
  /** Device IDs the plugin lists, all healthy: the VFs' PCI addresses. */
  readonly deviceIds: readonly string[];
  readonly devicePluginDir?: string;
}

export interface DevicePluginStandIn {
  /** The plugin's own socket in the device-plugins directory. */
  readonly socket: string;
  /** The device IDs of each container the kubelet allocated for, in call order. */
  allocations(): readonly (readonly string[])[];
  /** Ends the device streams, stops serving and removes the socket; the kubelet then marks the devices unhealthy. */
  stop(): Promise<void>;
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

/** Register at the kubelet; the kubelet calls GetDevicePluginOptions on the endpoint before it answers. */
function register(kubeletSocket: string, request: devicePluginV1beta1.RegisterRequest): Promise<void> {
  const client = new devicePluginV1beta1.RegistrationClient(`unix:${kubeletSocket}`, credentials.createInsecure());
  return new Promise<void>((resolve, reject) => {
    client.register(request, new Metadata(), { deadline: Date.now() + 10_000 }, (error) => {
      client.close();
      if (error === null) resolve();
      else reject(new Error(`the kubelet refused device plugin ${request.resourceName}: ${error.message}`, { cause: error }));
    });
  });
}

export async function startDevicePluginStandIn(options: DevicePluginStandInOptions): Promise<DevicePluginStandIn> {
  const dir = options.devicePluginDir ?? DEVICE_PLUGIN_DIR;
  const endpoint = `${options.resourceName.replace(/[^a-zA-Z0-9_-]/g, '-')}.sock`;
  const socket = join(dir, endpoint);
  const allocations: string[][] = [];
  const streams = new Set<ServerWritableStream<devicePluginV1beta1.Empty, devicePluginV1beta1.ListAndWatchResponse>>();
  const devices = options.deviceIds.map((id) => ({ ID: id, health: 'Healthy' }));

  const plugin: devicePluginV1beta1.DevicePluginServer = {
    getDevicePluginOptions: (_call, callback) => {
      callback(null, { preStartRequired: false, getPreferredAllocationAvailable: false });
    },
    // The list never changes: sent once, the stream held open until stop (its end tells the kubelet the plugin is gone).
    listAndWatch: (call) => {
      streams.add(call);
      call.on('cancelled', () => streams.delete(call));
      call.write({ devices });
    },
    getPreferredAllocation: (_call, callback) => {
      callback(null, { containerResponses: [] });
    },
    allocate: (call, callback) => {
      for (const request of call.request.containerRequests) allocations.push([...request.devicesIds]);
      callback(null, {
        containerResponses: call.request.containerRequests.map(() => ({ envs: {}, mounts: [], devices: [], annotations: {}, cdiDevices: [] })),
      });
    },
    preStartContainer: (_call, callback) => {
      callback(null, {});
    },
  };

  await removeSocket(socket);
  const server = new Server();
  server.addService(devicePluginV1beta1.DevicePluginService, plugin);
  await bindUnixSocket(server, socket);
  try {
    await register(join(dir, 'kubelet.sock'), {
      version: API_VERSION,
      endpoint,
      resourceName: options.resourceName,
      options: { preStartRequired: false, getPreferredAllocationAvailable: false },
    });
  } catch (error) {
    server.forceShutdown();
    await removeSocket(socket);
    throw error;
  }

  let stopping: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    for (const stream of streams) stream.end();
    streams.clear();
    await shutdownServer(server, 2_000);
    await removeSocket(socket);
  };
  return { socket, allocations: () => allocations.map((ids) => [...ids]), stop: () => (stopping ??= stop()) };
}
