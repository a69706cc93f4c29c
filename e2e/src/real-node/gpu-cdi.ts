// The CDI spec the NVIDIA driver's node plugin would write for the GPUs it prepares: containerd resolves
// the CDI device IDs the GPU stand-in answers through it (an unresolvable ID fails container creation).
// Each device only sets NVIDIA_VISIBLE_DEVICES, so a workload can show which GPUs it was given.
import fs from 'node:fs';
import path from 'node:path';

export function writeGpuCdiSpec(cdiRoot: string, gpus: readonly { readonly uuid: string }[]): string {
  const file = path.join(cdiRoot, 'k8s.gpu.nvidia.com-device.json');
  fs.mkdirSync(cdiRoot, { recursive: true });
  fs.writeFileSync(
    file,
    JSON.stringify({
      cdiVersion: '0.6.0',
      kind: 'k8s.gpu.nvidia.com/device',
      devices: gpus.map((gpu) => ({ name: gpu.uuid, containerEdits: { env: [`NVIDIA_VISIBLE_DEVICES=${gpu.uuid}`] } })),
    }),
  );
  return file;
}
