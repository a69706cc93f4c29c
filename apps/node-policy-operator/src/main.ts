#!/usr/bin/env node
import { pino } from 'pino';
import { VALIDATE_COMMAND } from './validate/validate-flags.ts';
import { validateCommand } from './validate/validate-command.ts';
import { WEBHOOK_COMMAND, parseWebhookFlags, webhookUsage } from './webhook/webhook-flags.ts';
import { type WebhookServer, startWebhookServer } from './webhook/webhook-server.ts';

/** Exit status for a bad command line, as for a usage error. */
const EXIT_USAGE = 2;

const USAGE = `Usage: node-policy-operator <command> [flags]

  ${WEBHOOK_COMMAND}    serve the validating admission webhook (${WEBHOOK_COMMAND} --help)
  ${VALIDATE_COMMAND}   check manifests offline with the webhook's rules (${VALIDATE_COMMAND} --help)
`;

const [command, ...args] = process.argv.slice(2);
const wantsHelp = (argv: readonly string[]): boolean => argv.includes('--help') || argv.includes('-h');

if (command === VALIDATE_COMMAND) process.exit(await validateCommand(args, process.stdout, process.stderr));

if (command !== WEBHOOK_COMMAND) {
  const help = command === undefined ? false : wantsHelp([command]);
  (help ? process.stdout : process.stderr).write(USAGE);
  process.exit(help ? 0 : EXIT_USAGE);
}

if (wantsHelp(args)) {
  process.stdout.write(webhookUsage());
  process.exit(0);
}

const flags = parseWebhookFlags(args, process.env);
if (!flags.ok) {
  process.stderr.write(`${flags.error.message}\n`);
  process.exit(EXIT_USAGE);
}

const logger = pino({ base: { component: 'node-policy-operator-webhook' } });
let server: WebhookServer;
try {
  server = await startWebhookServer({ ...flags.value, logger });
} catch (error) {
  logger.fatal({ err: error }, `webhook failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
logger.info({ port: server.port, operatorNamespace: flags.value.operatorNamespace }, 'serving admission reviews');

const shutdown = (signal: NodeJS.Signals): void => {
  logger.info({ signal }, 'stopping: answering what is in flight');
  server.close().then(
    () => process.exit(0),
    (error: unknown) => {
      logger.error({ err: error }, 'webhook did not stop cleanly');
      process.exit(1);
    },
  );
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
