import { z } from 'zod';

/**
 * The node inventory the generator translates hardware selectors against: the SriovNetworkNodeState the
 * operator's config daemon keeps per node (name = node name, operator namespace), status.interfaces. It is
 * the inventory upstream's own policy checks use, it lists every PF and VF whether or not any policy
 * advertises it (the driver's ResourceSlices could not: they show only what the generated configs admit,
 * so checking overlaps against them would feed the output back into its own input).
 */
const virtualFunctionSchema = z.looseObject({
  pciAddress: z.string(),
  vfID: z.int().min(0),
  vendor: z.string().optional(),
  deviceID: z.string().optional(),
  driver: z.string().optional(),
});

const interfaceSchema = z.looseObject({
  name: z.string().optional(),
  altNames: z.array(z.string()).nullable().optional(),
  pciAddress: z.string(),
  vendor: z.string().optional(),
  deviceID: z.string().optional(),
  netFilter: z.string().optional(),
  Vfs: z.array(virtualFunctionSchema).nullable().optional(),
});

export const nodeStateSchema = z.looseObject({
  metadata: z.looseObject({ name: z.string() }),
  status: z.looseObject({ interfaces: z.array(interfaceSchema).nullable().optional() }).optional(),
});

export interface InventoryVf {
  readonly pciAddress: string;
  readonly vfID: number;
}

export interface InventoryPf {
  readonly name: string;
  readonly altNames: readonly string[];
  readonly pciAddress: string;
  readonly vendor: string;
  readonly deviceID: string;
  readonly vfs: readonly InventoryVf[];
}

export interface NodeInventory {
  readonly node: string;
  readonly pfs: readonly InventoryPf[];
}

/** The inventory of one SriovNetworkNodeState, or why it cannot serve as one. Never throws. */
export function readNodeInventory(value: unknown): { readonly ok: true; readonly inventory: NodeInventory } | { readonly ok: false; readonly problem: string } {
  const parsed = nodeStateSchema.safeParse(value);
  if (!parsed.success) return { ok: false, problem: parsed.error.issues[0]?.message ?? 'not a SriovNetworkNodeState' };
  const pfs = (parsed.data.status?.interfaces ?? []).map((iface) => ({
    name: iface.name ?? '',
    altNames: iface.altNames ?? [],
    pciAddress: iface.pciAddress,
    vendor: iface.vendor ?? '',
    deviceID: iface.deviceID ?? '',
    vfs: (iface.Vfs ?? []).map((vf) => ({ pciAddress: vf.pciAddress, vfID: vf.vfID })),
  }));
  return { ok: true, inventory: { node: parsed.data.metadata.name, pfs } };
}
