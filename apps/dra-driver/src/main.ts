#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=2 --optimize-for-size --no-sparkplug --no-maglev --no-turbofan
import { pino } from 'pino';
import { DEFAULT_LOG_LEVEL, VERSION_FLAG, buildIdentity, exitOnStartupFailure, versionLine } from '@sriov-dra/k8s';
import { type Driver, startDriver } from './driver.ts';
import { driverFlagsUsage, parseDriverFlags, wantsHelp } from './driver-flags.ts';
import { PACKAGE_DIR } from './package-dir.ts';

/** Exit status for a bad command line or environment, as for a usage error. */
const EXIT_CONFIG = 2;

if (process.argv[2] === VERSION_FLAG) {
  process.stdout.write(versionLine('sriov-dra-driver', await buildIdentity(PACKAGE_DIR, process.env)));
  process.exit(0);
}

if (wantsHelp(process.argv.slice(2))) {
  process.stdout.write(driverFlagsUsage());
  process.exit(0);
}

const flags = parseDriverFlags(process.argv.slice(2), process.env);
if (!flags.ok) {
  process.stderr.write(`${flags.error.message}\n`);
  process.exit(EXIT_CONFIG);
}

const logLevel = flags.value.logLevel ?? DEFAULT_LOG_LEVEL;
const logger = pino({ level: logLevel, base: { component: 'dra-driver', node: flags.value.nodeName } });
let driver: Driver;
try {
  driver = await startDriver(flags.value, { logger });
} catch (error) {
  exitOnStartupFailure('dra-driver', error, logger, logLevel);
}
logger.info('driver started');

const shutdown = (signal: NodeJS.Signals): void => {
  logger.info({ signal }, 'stopping');
  driver.stop().then(
    () => {
      logger.info('driver stopped');
      process.exit(0);
    },
    (error: unknown) => {
      logger.error({ err: error }, 'driver did not stop cleanly');
      process.exit(1);
    },
  );
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
