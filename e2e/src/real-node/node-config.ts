// The real node's configuration files, rendered from its paths: containerd's config.toml (CRI plugin with
// runc, CNI from the node's conf and bin directories, CDI specs where the drivers write them) and the
// kubelet's KubeletConfiguration. Everything lives under the node's temporary root; nothing here reads
// or writes the machine's own /etc, /var/lib/containerd or /var/lib/kubelet.

export interface NodeLayout {
  readonly root: string;
  readonly containerd: { readonly root: string; readonly state: string; readonly socket: string; readonly runcRoot: string };
  readonly kubelet: { readonly root: string; readonly pki: string; readonly podLogs: string; readonly volumePlugins: string };
  readonly cni: { readonly binDir: string; readonly confDir: string };
  readonly cdiRoot: string;
}

export function nodeLayout(root: string, cni: { readonly binDir: string; readonly confDir: string }, cdiRoot: string): NodeLayout {
  return {
    root,
    containerd: {
      root: `${root}/containerd/root`,
      state: `${root}/containerd/state`,
      socket: `${root}/containerd/containerd.sock`,
      runcRoot: `${root}/containerd/runc`,
    },
    kubelet: { root: `${root}/kubelet/root`, pki: `${root}/kubelet/pki`, podLogs: `${root}/kubelet/pod-logs`, volumePlugins: `${root}/kubelet/volume-plugins` },
    cni,
    cdiRoot,
  };
}

/** Where containerd mounts the Pods' network namespaces (netns_mounts_under_state_dir). */
export function netnsDir(layout: NodeLayout): string {
  return `${layout.containerd.state}/io.containerd.grpc.v1.cri/netns`;
}

const quote = (value: string): string => `'${value}'`;

/**
 * containerd v2.4 (config version 4: the socket addresses are the server plugins'). `restrict_oom_score_adj`: the kubelet asks for a
 * negative OOM score for sandboxes, which a root without CAP_SYS_RESOURCE cannot set; runc then fails to
 * start any container. NRI is off so that nothing listens on /var/run/nri.
 */
export function containerdConfig(layout: NodeLayout, options: { readonly pauseImage: string; readonly runc: string }): string {
  const { containerd, cni } = layout;
  return `version = 4
root = ${quote(containerd.root)}
state = ${quote(containerd.state)}
imports = []

[plugins.'io.containerd.server.v1.grpc']
  address = ${quote(containerd.socket)}

[plugins.'io.containerd.server.v1.ttrpc']
  address = ${quote(`${containerd.socket}.ttrpc`)}

[plugins.'io.containerd.nri.v1.nri']
  disable = true

[plugins.'io.containerd.cri.v1.images']
  snapshotter = 'overlayfs'
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = ${quote(options.pauseImage)}

[plugins.'io.containerd.cri.v1.runtime']
  netns_mounts_under_state_dir = true
  restrict_oom_score_adj = true
  enable_cdi = true
  cdi_spec_dirs = [${quote(layout.cdiRoot)}]
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = 'runc'
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = 'io.containerd.runc.v2'
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        BinaryName = ${quote(options.runc)}
        Root = ${quote(containerd.runcRoot)}
        SystemdCgroup = false
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = [${quote(cni.binDir)}]
    conf_dir = ${quote(cni.confDir)}
    max_conf_num = 1
`;
}

export interface KubeletSettings {
  readonly nodeIp: string;
  readonly port: number;
  readonly healthzPort: number;
  readonly cgroupRoot: string;
  readonly clientCaFile: string;
  readonly serving: { readonly cert: string; readonly key: string };
}

/**
 * The KubeletConfiguration: cgroup v1 allowed (failCgroupV1), the cgroupfs driver, serving on the node's own
 * address with a certificate the API server verifies, webhook authentication and authorization (the API
 * server's kubelet client certificate is system:masters), image garbage collection and disk-pressure
 * eviction kept out of the way of a test machine's disk.
 */
export function kubeletConfig(layout: NodeLayout, settings: KubeletSettings): string {
  return JSON.stringify(
    {
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      kind: 'KubeletConfiguration',
      failCgroupV1: false,
      cgroupDriver: 'cgroupfs',
      cgroupRoot: settings.cgroupRoot,
      containerRuntimeEndpoint: `unix://${layout.containerd.socket}`,
      imageServiceEndpoint: `unix://${layout.containerd.socket}`,
      address: settings.nodeIp,
      port: settings.port,
      readOnlyPort: 0,
      healthzBindAddress: '127.0.0.1',
      healthzPort: settings.healthzPort,
      tlsCertFile: settings.serving.cert,
      tlsPrivateKeyFile: settings.serving.key,
      authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: settings.clientCaFile } },
      authorization: { mode: 'Webhook' },
      failSwapOn: false,
      podLogsDir: layout.kubelet.podLogs,
      volumePluginDir: layout.kubelet.volumePlugins,
      clusterDomain: 'cluster.local',
      resolvConf: '/etc/resolv.conf',
      evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '1%', 'imagefs.available': '1%' },
      imageGCHighThresholdPercent: 100,
      imageGCLowThresholdPercent: 99,
      serializeImagePulls: false,
      // Status every few seconds, so that a restarted container or a recreated sandbox shows up quickly.
      syncFrequency: '5s',
    },
    null,
    2,
  );
}
