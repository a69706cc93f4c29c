import { readManifests } from './read-manifests.ts';
import { VALIDATE_COMMAND, parseValidateFlags, validateUsage } from './validate-flags.ts';
import { formatFinding, validateManifests } from './validate-manifests.ts';

/** Exit statuses: every object passes; an object has findings; an input (or the command line) is unusable. */
export const VALIDATE_EXIT = { clean: 0, findings: 1, unusableInput: 2 } as const;

interface Output {
  write(text: string): unknown;
}

/**
 * `node-policy-operator validate -f …`: findings on stdout, unusable inputs and the summary on stderr.
 * Returns the exit status; an unusable input outranks findings, since part of the input went unchecked.
 */
export async function validateCommand(argv: readonly string[], out: Output, err: Output): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    out.write(validateUsage());
    return VALIDATE_EXIT.clean;
  }
  const flags = parseValidateFlags(argv);
  if (!flags.ok) {
    err.write(`${flags.error.message}\n`);
    return VALIDATE_EXIT.unusableInput;
  }
  const manifests = await readManifests(flags.value.paths);
  const report = validateManifests(manifests.documents, flags.value);
  for (const finding of report.findings) out.write(`${formatFinding(finding)}\n`);
  const unusable = [...manifests.errors, ...report.errors];
  for (const error of unusable) err.write(`${error.file}: ${error.message}\n`);
  err.write(
    `${VALIDATE_COMMAND}: ${report.findings.length} finding(s) in ${report.checked} SriovNetworkNodePolicy/SriovNetwork object(s)` +
      `${unusable.length === 0 ? '' : `; ${unusable.length} input(s) could not be checked`}\n`,
  );
  if (unusable.length > 0) return VALIDATE_EXIT.unusableInput;
  return report.findings.length > 0 ? VALIDATE_EXIT.findings : VALIDATE_EXIT.clean;
}
