// runCommand, the frame every sriov-dra command runs in: a command's throw becomes one line and exit
// status 1, whatever was thrown; the stack follows only when asked for.
import { afterEach, describe, expect, it } from '@jest/globals';
import { runCommand } from '../../src/admin/cli-connection.ts';

function buffer(): { text: string; write(chunk: string): void } {
  return {
    text: '',
    write(chunk) {
      this.text += chunk;
    },
  };
}

afterEach(() => {
  delete process.env['SRIOV_DRA_DEBUG'];
});

describe('runCommand', () => {
  it('exits 0 when the body returns', async () => {
    const err = buffer();
    expect(await runCommand(err, () => Promise.resolve())).toBe(0);
    expect(err.text).toBe('');
  });

  it('turns an error it cannot classify into one UnexpectedFailure line, exit 1, no stack', async () => {
    const err = buffer();
    const status = await runCommand(err, () => Promise.reject(new TypeError("Cannot read properties of undefined (reading 'items')\n    while listing")));
    expect({ status, stderr: err.text }).toEqual({
      status: 1,
      stderr:
        "error: UnexpectedFailure: Cannot read properties of undefined (reading 'items') while listing — run it again with SRIOV_DRA_DEBUG=1 for the stack trace and report it\n",
    });
  });

  it('adds the stack with SRIOV_DRA_DEBUG=1', async () => {
    process.env['SRIOV_DRA_DEBUG'] = '1';
    const err = buffer();
    expect(await runCommand(err, () => Promise.reject(new Error('boom')))).toBe(1);
    const [line, ...stack] = err.text.split('\n');
    expect(line).toBe('error: UnexpectedFailure: boom — run it again with SRIOV_DRA_DEBUG=1 for the stack trace and report it');
    expect(stack.join('\n')).toMatch(/^Error: boom\n {4}at /);
  });
});
