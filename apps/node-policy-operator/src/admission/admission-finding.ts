import type { ErrorCode, SriovDraError } from '@sriov-dra/contract';
import type { SourceNadCode, SourceNadError } from '../render/source-nad-error.ts';

/**
 * One reason an object is refused. The webhook, the offline validate command and the controllers all
 * derive it from the same validation code, so a manifest the command passes is one the API server admits.
 */
export interface AdmissionFinding {
  /** Stable code to match on: a contract error code, or a SourceNadCode for SriovNetwork rendering. */
  readonly code: ErrorCode | SourceNadCode;
  /** Path of the offending field, e.g. `spec.dra.attributes["example.com/x"]`. */
  readonly field: string;
  /** `<code>: <what is wrong> — <what to do>`, without the object (the caller names it). */
  readonly message: string;
}

/** The field of a finding about the object as a whole (it is not even an object). */
export const WHOLE_OBJECT = '(object)';

export function findingOf(error: SriovDraError | SourceNadError, field: string): AdmissionFinding {
  return { code: error.code, field, message: `${error.code}: ${error.detail} \u2014 ${error.remedy}` };
}

/** `<field>: <code>: <what is wrong> — <what to do>`: one finding as every surface prints it. */
export function describeFinding(finding: AdmissionFinding): string {
  return `${finding.field}: ${finding.message}`;
}
