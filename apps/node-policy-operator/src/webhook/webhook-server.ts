import { LogController, fastify } from 'fastify';
import type { Logger } from 'pino';
import type { AdmissionOptions, AdmittedKind } from '../admission/admission-object.ts';
import { ADMISSION_REVIEW_API_VERSION, admissionReviewSchema, reviewResponse, uidOf } from './admission-review.ts';
import { reviewAdmission } from './review-admission.ts';
import { listenError } from '@sriov-dra/k8s';
import {
  type ServingCertificate,
  type ServingCertificateFiles,
  invalidServingCertificate,
  readServingCertificate,
  watchServingCertificate,
} from './serving-certificate.ts';

/** The path the ValidatingWebhookConfiguration names for each kind. */
export const WEBHOOK_PATHS: Readonly<Record<AdmittedKind, string>> = {
  SriovNetworkNodePolicy: '/validate-sriovnetworknodepolicy',
  SriovNetwork: '/validate-sriovnetwork',
};

/**
 * A review carries the object and, on UPDATE, the stored one; each may be as large as the API server
 * accepts (3 MiB), which is well above fastify's 1 MiB default.
 */
const REVIEW_BODY_LIMIT = 8 * 1024 * 1024;

export interface WebhookServerOptions extends AdmissionOptions, ServingCertificateFiles {
  readonly host: string;
  /** Zero picks a free port. */
  readonly port: number;
  readonly logger: Logger;
  /** How often the certificate files are checked for rotation. */
  readonly certificateCheckIntervalMs?: number;
}

export interface WebhookServer {
  /** The port actually bound. */
  readonly port: number;
  close(): Promise<void>;
}

/** The HTTPS server before its routes; TLS rejects a certificate or key that cannot serve here. */
function reviewServer(certificate: ServingCertificate, logger: Logger) {
  return fastify({
    https: certificate,
    loggerInstance: logger,
    // Each review is logged once, with its decision, by the route itself.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: REVIEW_BODY_LIMIT,
    // Attribute keys are user data: "__proto__" or "constructor" must reach validation and be refused
    // there with the field named. Nothing here merges parsed input into another object.
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
  });
}

/**
 * The validating admission webhook over TLS: one path per kind, answering admission.k8s.io/v1
 * AdmissionReviews, and /healthz. A body that is not a review is answered 400 with the reason; a review
 * with a uid whose content is unusable is refused through the review, so the client sees why.
 */
export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const { logger } = options;
  const certificate = readServingCertificate(options);
  let server: ReturnType<typeof reviewServer>;
  try {
    server = reviewServer(certificate, logger);
  } catch (error) {
    throw invalidServingCertificate(options, error);
  }
  server.get('/healthz', async (_request, reply) => reply.type('text/plain').send('ok'));
  for (const [kind, path] of Object.entries(WEBHOOK_PATHS) as [AdmittedKind, string][]) {
    server.post(path, async (request, reply) => {
      const review = admissionReviewSchema.safeParse(request.body);
      if (!review.success) {
        const issue = review.error.issues[0];
        const at = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.join('.')}: `;
        const reason = `the body is not an ${ADMISSION_REVIEW_API_VERSION} AdmissionReview (${at}${issue?.message ?? 'invalid'}); send it to this path from a ValidatingWebhookConfiguration with admissionReviewVersions [v1]`;
        logger.warn({ path, reason }, 'malformed admission review');
        const uid = uidOf(request.body);
        if (uid === undefined) return reply.code(400).send({ message: reason });
        return reply.send(reviewResponse({ uid, allowed: false, status: { status: 'Failure', code: 400, reason: 'BadRequest', message: reason } }));
      }
      const { request: admission } = review.data;
      const response = reviewAdmission(admission, kind, options);
      logger.info(
        {
          uid: admission.uid,
          kind,
          operation: admission.operation,
          namespace: admission.namespace,
          name: admission.name,
          allowed: response.allowed,
          ...(response.status === undefined ? {} : { reason: response.status.message }),
          ...(response.warnings === undefined ? {} : { warnings: response.warnings }),
        },
        response.allowed ? 'admitted' : 'refused',
      );
      return reply.send(reviewResponse(response));
    });
  }
  const stopWatching = watchServingCertificate(
    options,
    options.certificateCheckIntervalMs ?? 10_000,
    (certificate) => {
      server.server.setSecureContext(certificate);
      logger.info({ certFile: options.certFile }, 'serving the rotated TLS certificate');
    },
    (error) => {
      logger.error({ err: error }, 'the rotated TLS certificate cannot be served yet; the previous one stays in use');
    },
  );
  try {
    await server.listen({ host: options.host, port: options.port });
  } catch (error) {
    stopWatching();
    await server.close();
    throw listenError(error, { portFlag: '--port', host: options.host, port: options.port });
  }
  const address = server.server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : options.port,
    close: async () => {
      stopWatching();
      await server.close();
    },
  };
}
