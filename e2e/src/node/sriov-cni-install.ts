// Puts the sriov stand-in where a CNI runtime looks for plugins. A runtime executes `<binDir>/sriov` with no
// arguments, so the node's sysfs root and state directory are baked into a small shell wrapper around this
// Node and the stand-in's source.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PROGRAM = fileURLToPath(new URL('./sriov-cni-stand-in.ts', import.meta.url));

/** Single-quoted for /bin/sh: nothing inside single quotes is special except the quote itself. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** Writes an executable `sriov` into binDir: a /bin/sh wrapper exec'ing this Node with the stand-in program and the node's sysfs root and state dir. Returns its path. */
export function installSriovStandIn(binDir: string, options: { readonly sysfsRoot: string; readonly stateDir: string }): string {
  const command = [process.execPath, PROGRAM, '--sysfs-root', path.resolve(options.sysfsRoot), '--state-dir', path.resolve(options.stateDir)];
  const wrapper = path.join(binDir, 'sriov');
  fs.mkdirSync(binDir, { recursive: true });
  // Written beside and renamed over, so a runtime calling the plugin meanwhile never executes half a script.
  const temporary = `${wrapper}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `#!/bin/sh\nexec ${command.map(shellQuote).join(' ')}\n`, { mode: 0o755 });
  fs.renameSync(temporary, wrapper);
  return wrapper;
}
