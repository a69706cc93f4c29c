#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=2 --optimize-for-size --no-sparkplug --no-maglev --no-turbofan
import { pino } from 'pino';
import { type Driver, startDriver } from './driver.ts';
import { driverFlagsUsage, parseDriverFlags, wantsHelp } from './driver-flags.ts';

/** Exit status for a bad command line or environment, as for a usage error. */
const EXIT_CONFIG = 2;

if (wantsHelp(process.argv.slice(2))) {
  process.stdout.write(driverFlagsUsage());
  process.exit(0);
}

const flags = parseDriverFlags(process.argv.slice(2), process.env);
if (!flags.ok) {
  process.stderr.write(`${flags.error.message}\n`);
  process.exit(EXIT_CONFIG);
}

const logger = pino({ base: { component: 'dra-driver', node: flags.value.nodeName } });
let driver: Driver;
try {
  driver = await startDriver(flags.value, { logger });
} catch (error) {
  logger.fatal({ err: error }, `driver failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
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
