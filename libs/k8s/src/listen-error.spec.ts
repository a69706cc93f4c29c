import { describe, expect, it } from '@jest/globals';
import { isSriovDraError } from '@sriov-dra/contract';
import { listenError } from './listen-error.ts';

const target = { portFlag: '--health-port', host: '0.0.0.0', port: 80 };
const systemError = (code: string): Error => Object.assign(new Error(`listen ${code}`), { code });

describe('listenError', () => {
  it('names the port flag of a port another process holds', () => {
    const error = listenError(systemError('EADDRINUSE'), target);
    expect(isSriovDraError(error) ? error.message : error).toBe(
      'InvalidComponentSetting: Flag --health-port: port 0.0.0.0:80 is already in use — stop what listens there or set --health-port to a free port',
    );
  });

  it('names the port flag of a privileged port the process may not bind', () => {
    const error = listenError(systemError('EACCES'), target);
    expect(isSriovDraError(error) ? error.message : error).toBe(
      'InvalidComponentSetting: Flag --health-port: port 0.0.0.0:80 may not be bound by this process — set --health-port to a port above 1023, or grant the process CAP_NET_BIND_SERVICE',
    );
  });

  it('leaves any other failure as it is', () => {
    const other = systemError('EADDRNOTAVAIL');
    expect(listenError(other, target)).toBe(other);
  });
});
