#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=2 --optimize-for-size --no-sparkplug --no-maglev --no-turbofan
import { pino } from 'pino';
import { DEFAULT_LOG_LEVEL, VERSION_FLAG, buildIdentity, exitOnStartupFailure, serviceKubeClient, versionLine } from '@sriov-dra/k8s';
import { RUN_COMMAND, parseRunFlags, runUsage } from './cli/run-flags.ts';
import { crdsCommand } from './crds/crds-command.ts';
import { checkDraSchemasAtStart, podTerminationLog } from './crds/dra-schema-check.ts';
import { CRDS_COMMAND } from './crds/crds-flags.ts';
import { startOperator } from './operator.ts';
import { PACKAGE_DIR } from './package-dir.ts';
import { VALIDATE_COMMAND } from './validate/validate-flags.ts';
import { validateCommand } from './validate/validate-command.ts';
import { WEBHOOK_COMMAND, parseWebhookFlags, webhookUsage } from './webhook/webhook-flags.ts';
import { startWebhookServer } from './webhook/webhook-server.ts';
import { setUpWebhookCertificates } from './webhook-certificates/webhook-certificates-command.ts';
import { WEBHOOK_CERTIFICATES_COMMAND, parseWebhookCertificatesFlags, webhookCertificatesUsage } from './webhook-certificates/webhook-certificates-flags.ts';

/** Exit status for a bad command line, as for a usage error. */
const EXIT_USAGE = 2;

const USAGE = `Usage: node-policy-operator <command> [flags]

  ${RUN_COMMAND}        run the SriovNetwork and node-policy DRA controllers (${RUN_COMMAND} --help)
  ${WEBHOOK_COMMAND}    serve the validating admission webhook (${WEBHOOK_COMMAND} --help)
  ${WEBHOOK_CERTIFICATES_COMMAND}   set up the webhook's serving certificate and caBundle (${WEBHOOK_CERTIFICATES_COMMAND} --help)
  ${VALIDATE_COMMAND}   check manifests offline with the webhook's rules (${VALIDATE_COMMAND} --help)
  ${CRDS_COMMAND} apply  install the CRDs other projects own, or add spec.dra to installed ones (${CRDS_COMMAND} apply --help)
  ${VERSION_FLAG}  print the release and source commit
`;

const wantsHelp = (argv: readonly string[]): boolean => argv.includes('--help') || argv.includes('-h');

/** Stops the service on SIGTERM/SIGINT, exiting 0 once it has stopped cleanly. */
function stopOnSignal(logger: pino.Logger, what: string, stop: () => Promise<void>): void {
  const handler = (signal: NodeJS.Signals): void => {
    logger.info({ signal }, `stopping the ${what}`);
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, `the ${what} did not stop cleanly`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}

async function run(args: readonly string[]): Promise<void> {
  const flags = parseRunFlags(args, process.env);
  if (!flags.ok) {
    process.stderr.write(`${flags.error.message}\n`);
    process.exit(EXIT_USAGE);
  }
  const settings = flags.value;
  const logLevel = settings.logLevel ?? DEFAULT_LOG_LEVEL;
  const logger = pino({ level: logLevel, base: { component: 'node-policy-operator' } });
  const clientOptions = { qps: settings.kubeApiQps, burst: settings.kubeApiBurst, userAgent: 'sriov-dra/node-policy-operator' };
  try {
    const client = serviceKubeClient(settings.kubeconfig, clientOptions);
    if (!(await checkDraSchemasAtStart(client, logger, podTerminationLog(settings.kubeconfig)))) process.exit(1);
    const operator = await startOperator(settings, client, logger);
    logger.info(
      { healthPort: operator.healthPort, operatorNamespace: settings.operatorNamespace, draEnabled: settings.draEnabled, mode: settings.mode },
      'operator started',
    );
    stopOnSignal(logger, 'operator', () => operator.stop());
  } catch (error) {
    exitOnStartupFailure('node-policy-operator', error, logger, logLevel);
  }
}

async function serveWebhook(args: readonly string[]): Promise<void> {
  const flags = parseWebhookFlags(args, process.env);
  if (!flags.ok) {
    process.stderr.write(`${flags.error.message}\n`);
    process.exit(EXIT_USAGE);
  }
  const logLevel = flags.value.logLevel ?? DEFAULT_LOG_LEVEL;
  const logger = pino({ level: logLevel, base: { component: 'node-policy-operator-webhook' } });
  try {
    const server = await startWebhookServer({ ...flags.value, logger });
    logger.info({ port: server.port, operatorNamespace: flags.value.operatorNamespace }, 'serving admission reviews');
    stopOnSignal(logger, 'webhook', () => server.close());
  } catch (error) {
    exitOnStartupFailure('node-policy-operator webhook', error, logger, logLevel);
  }
}

async function setUpCertificates(args: readonly string[]): Promise<void> {
  const flags = parseWebhookCertificatesFlags(args, process.env);
  if (!flags.ok) {
    process.stderr.write(`${flags.error.message}\n`);
    process.exit(EXIT_USAGE);
  }
  const logLevel = flags.value.logLevel ?? DEFAULT_LOG_LEVEL;
  const logger = pino({ level: logLevel, base: { component: 'node-policy-operator-webhook-certificates' } });
  try {
    const client = serviceKubeClient(flags.value.kubeconfig, { userAgent: 'sriov-dra/node-policy-operator-webhook-certificates' });
    try {
      const { outcome, webhooks } = await setUpWebhookCertificates(client, flags.value, logger);
      logger.info({ secret: `${flags.value.namespace}/${flags.value.secretName}`, outcome, webhooks }, 'the webhook serving certificate is set up');
    } finally {
      client.close();
    }
  } catch (error) {
    exitOnStartupFailure('node-policy-operator webhook-certificates', error, logger, logLevel);
  }
}

const [command, ...args] = process.argv.slice(2);
if (command === VERSION_FLAG) {
  process.stdout.write(versionLine('node-policy-operator', await buildIdentity(PACKAGE_DIR, process.env)));
  process.exit(0);
} else if (command === VALIDATE_COMMAND) {
  process.exit(await validateCommand(args, process.stdout, process.stderr));
} else if (command === CRDS_COMMAND) {
  process.exit(await crdsCommand(args, process.stdout, process.stderr));
} else if (command === RUN_COMMAND) {
  if (wantsHelp(args)) {
    process.stdout.write(runUsage());
    process.exit(0);
  }
  await run(args);
} else if (command === WEBHOOK_COMMAND) {
  if (wantsHelp(args)) {
    process.stdout.write(webhookUsage());
    process.exit(0);
  }
  await serveWebhook(args);
} else if (command === WEBHOOK_CERTIFICATES_COMMAND) {
  if (wantsHelp(args)) {
    process.stdout.write(webhookCertificatesUsage());
    process.exit(0);
  }
  await setUpCertificates(args);
} else {
  const help = command === undefined ? false : wantsHelp([command]);
  (help ? process.stdout : process.stderr).write(USAGE);
  process.exit(help ? 0 : EXIT_USAGE);
}
