// The krew Plugin manifest for `kubectl sriov-dra` (krew.googlecontainertools.github.com/v1alpha2): what
// `kubectl krew install --manifest=…` reads to fetch the release archive, check its sha256 and link its bin.

/** krew installs a plugin named `sriov-dra` as the executable `kubectl-sriov_dra`, which kubectl runs for `kubectl sriov-dra`. */
export const KREW_PLUGIN_NAME = 'sriov-dra';

/** The plugin executable inside the release archive: the launcher that runs the built admin command. */
export const KREW_PLUGIN_BIN = 'apps/dra-driver/bin/kubectl-sriov_dra';

/** The Node.js the archive needs on PATH: it carries the compiled JavaScript, not a runtime. */
export const KREW_NODE_REQUIREMENT = 'Node.js 24 or later';

export interface KrewPlatform {
  readonly selector: { readonly matchExpressions: readonly { readonly key: 'os' | 'arch'; readonly operator: 'In'; readonly values: readonly string[] }[] };
  readonly uri: string;
  readonly sha256: string;
  readonly bin: string;
  readonly files: readonly { readonly from: string; readonly to: string }[];
}

export interface KrewPlugin {
  readonly apiVersion: 'krew.googlecontainertools.github.com/v1alpha2';
  readonly kind: 'Plugin';
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly version: string;
    readonly homepage: string;
    readonly shortDescription: string;
    readonly description: string;
    readonly caveats: string;
    readonly platforms: readonly KrewPlatform[];
  };
}

export interface ReleaseArchive {
  /** The package version, as package.json has it (krew wants it with a leading "v"). */
  readonly version: string;
  /** Where the archive is published (or a file: URL of it, for `kubectl krew install --manifest`). */
  readonly uri: string;
  readonly sha256: string;
}

/**
 * The manifest for one release archive. The archive holds JavaScript and no native code, so the one archive
 * serves every operating system Node.js and kubectl run plugins on through a shebang (not Windows).
 */
export function krewManifest(archive: ReleaseArchive): KrewPlugin {
  return {
    apiVersion: 'krew.googlecontainertools.github.com/v1alpha2',
    kind: 'Plugin',
    metadata: { name: KREW_PLUGIN_NAME },
    spec: {
      version: `v${archive.version}`,
      homepage: 'https://github.com/sriov-dra/sriov-dra',
      shortDescription: 'Render, inspect and clean up DRA-allocated SR-IOV networks',
      description:
        'The sriov-dra administrator command as a kubectl plugin: render a source NetworkAttachmentDefinition for one VF, ' +
        'show the managed networks of a Pod (claim, device, shadow NAD, interface, addresses), and list shadow NADs a ' +
        "node's checkpoint does not account for. `kubectl sriov-dra --version` prints the release and source commit.",
      caveats: `This plugin runs on ${KREW_NODE_REQUIREMENT}, which must be on PATH as \`node\`; it is not bundled.`,
      platforms: [
        {
          selector: { matchExpressions: [{ key: 'os', operator: 'In', values: ['linux', 'darwin'] }] },
          uri: archive.uri,
          sha256: archive.sha256,
          bin: KREW_PLUGIN_BIN,
          files: [{ from: '*', to: '.' }],
        },
      ],
    },
  };
}
