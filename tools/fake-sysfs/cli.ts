// Writes a fake sysfs tree: node tools/fake-sysfs/cli.ts --root DIR --pfs N --vfs M [options]
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { generateFakeSysfs, uniformLayout } from './generate.ts';
import { NIC_MODELS, isNicModelName } from './nic-models.ts';

const USAGE = `usage: node tools/fake-sysfs/cli.ts --root DIR --pfs N --vfs M [options]
  --model NAME          ${Object.keys(NIC_MODELS).join(' | ')} (default connectx-6)
  --pcie-roots LIST     comma-separated roots the PFs are spread over (default pci0000:3a,pci0000:86)
  --numa-nodes LIST     NUMA node of each root, -1 for none (default 0,1,…)
  --vf-driver NAME      driver the VFs are bound to, or "none" (default: the model's VF driver)
  --link-type TYPE      ethernet | infiniband (default ethernet)
  --operstate STATE     up | down (default up)
  --eswitch-mode MODE   legacy | switchdev (default: not reported)`;

const items = (value: string): string[] => value.split(',').map((item) => item.trim());
const list = z
  .string()
  .transform(items)
  .pipe(z.array(z.string().min(1)).min(1));
const numbers = z
  .string()
  .transform(items)
  .pipe(
    z
      .array(
        z
          .string()
          .regex(/^-?\d+$/)
          .transform(Number)
          .pipe(z.number().int().min(-1)),
      )
      .min(1),
  );

const optionsSchema = z.strictObject({
  root: z.string().min(1),
  pfs: z.coerce.number().int().min(0),
  vfs: z.coerce.number().int().min(0),
  model: z.string().refine(isNicModelName, 'unknown NIC model').optional(),
  'pcie-roots': list.optional(),
  'numa-nodes': numbers.optional(),
  'vf-driver': z.string().min(1).optional(),
  'link-type': z.enum(['ethernet', 'infiniband']).optional(),
  operstate: z.enum(['up', 'down']).optional(),
  'eswitch-mode': z.enum(['legacy', 'switchdev']).optional(),
});

function main(argv: readonly string[]): number {
  const { values } = parseArgs({
    args: [...argv],
    options: Object.fromEntries(Object.keys(optionsSchema.shape).map((name) => [name, { type: 'string' as const }])),
  });
  const parsed = optionsSchema.safeParse(values);
  if (!parsed.success) {
    console.error(`fake-sysfs: ${z.prettifyError(parsed.error)}\n${USAGE}`);
    return 2;
  }
  const options = parsed.data;
  const vfDriver = options['vf-driver'];
  const generated = generateFakeSysfs(
    options.root,
    uniformLayout({
      pfs: options.pfs,
      vfsPerPf: options.vfs,
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options['pcie-roots'] === undefined ? {} : { pcieRoots: options['pcie-roots'] }),
      ...(options['numa-nodes'] === undefined ? {} : { numaNodes: options['numa-nodes'] }),
      ...(vfDriver === undefined ? {} : { vfDriver: vfDriver === 'none' ? null : vfDriver }),
      ...(options['link-type'] === undefined ? {} : { linkType: options['link-type'] }),
      ...(options.operstate === undefined ? {} : { operstate: options.operstate }),
      ...(options['eswitch-mode'] === undefined ? {} : { eswitchMode: options['eswitch-mode'] }),
    }),
  );
  console.log(JSON.stringify(generated, null, 2));
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  console.error(`fake-sysfs: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  process.exitCode = 2;
}
