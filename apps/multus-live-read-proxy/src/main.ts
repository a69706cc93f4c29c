#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=2 --optimize-for-size --no-sparkplug --no-maglev --no-turbofan
import { pino } from 'pino';
import { DEFAULT_LOG_LEVEL, VERSION_FLAG, exitOnStartupFailure, versionLine } from '@sriov-dra/k8s';
import { type Daemon, startDaemon } from './daemon.ts';
import { daemonFlagsUsage, parseDaemonFlags, wantsHelp } from './daemon-flags.ts';
import { buildIdentity } from './preflight/build-identity.ts';
import { preflightCommand } from './preflight/preflight-command.ts';
import { PREFLIGHT_COMMAND } from './preflight/preflight-flags.ts';

/** Exit status for a bad command line or environment, as for a usage error. */
const EXIT_CONFIG = 2;

if (process.argv[2] === VERSION_FLAG) {
  process.stdout.write(versionLine('multus-live-read-proxy', await buildIdentity(process.env)));
  process.exit(0);
}

if (process.argv[2] === PREFLIGHT_COMMAND) {
  process.exit(await preflightCommand(process.argv.slice(3), process.env, process.stdout, process.stderr));
}

if (wantsHelp(process.argv.slice(2))) {
  process.stdout.write(daemonFlagsUsage());
  process.exit(0);
}

const flags = parseDaemonFlags(process.argv.slice(2), process.env);
if (!flags.ok) {
  process.stderr.write(`${flags.error.message}\n`);
  process.exit(EXIT_CONFIG);
}

const logLevel = flags.value.logLevel ?? DEFAULT_LOG_LEVEL;
const logger = pino({ level: logLevel, base: { component: 'multus-live-read-proxy', node: flags.value.nodeName } });
let daemon: Daemon;
try {
  daemon = await startDaemon(flags.value, { logger });
} catch (error) {
  exitOnStartupFailure('multus-live-read-proxy', error, logger, logLevel);
}

const shutdown = (signal: NodeJS.Signals): void => {
  logger.info({ signal }, 'stopping: answering what is in flight');
  daemon.stop().then(
    () => {
      logger.info('daemon stopped');
      process.exit(0);
    },
    (error: unknown) => {
      logger.error({ err: error }, 'daemon did not stop cleanly');
      process.exit(1);
    },
  );
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
