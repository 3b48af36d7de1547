// Bundles minify class names (lib/bundling.ts), so each error class names itself: a log line's `errorType` and
// every reader of `error.name` go by it. Here, unminified, each class's own name is at hand to compare with.
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as domainErrors from '../../domain/errors';
import * as storeAdminErrors from '../../domain/store-admin';
import * as httpErrors from '../../http/errors';
import { TimeoutError } from '../../processing/http-exchange';
import * as processingErrors from '../../processing/errors';

const init = { operation: 'createInvoice', code: 'code', message: 'message' };

/** One of every error class the functions raise, made as they make it. */
const samples: Error[] = [
  new domainErrors.DomainError('code', 'message'),
  new domainErrors.NotFoundError('Invoice'),
  new domainErrors.ConflictError('foreign_id_conflict', 'message'),
  new domainErrors.RefundBoundError({ amount: '1.00000000', currency: 'EUR' }),
  new domainErrors.InProgressError(1),
  new domainErrors.NotReadyError('The invoice'),
  new domainErrors.NotConfiguredError('message'),
  new domainErrors.CallbackSignatureError(),
  new domainErrors.InvalidFieldsError({ webhook_url: 'is refused' }),
  new storeAdminErrors.StoreNotFoundError(),
  new storeAdminErrors.DefaultStoreError(),
  new domainErrors.ServiceError('failed', 'message', { code: 'code' }),
  new httpErrors.HttpError('unauthorized', 'message'),
  new httpErrors.InvalidRequestError({ amount: 'is required' }),
  new httpErrors.UnrenderableRecordError('created_at'),
  new TimeoutError('connect_timeout'),
  new processingErrors.ProcessingError(init),
  new processingErrors.ProcessingValidationError({ ...init, fields: {} }),
  new processingErrors.ProcessingFeatureDisabledError(init),
  new processingErrors.ProcessingBadContentError(init),
  new processingErrors.ProcessingAuthError(init),
  new processingErrors.ProcessingInvalidStateError(init),
  new processingErrors.ProcessingNotFoundError(init),
  new processingErrors.ProcessingUpstreamError(init),
  new processingErrors.ProcessingTimeRangeError('createInvoice', 'expires_at'),
  new processingErrors.ProcessingConnectionError({ ...init, outcomeUnknown: true }),
  new processingErrors.ProcessingTimeoutError({ ...init, outcomeUnknown: true }),
];

test.each(samples.map((error) => [error.constructor.name, error]))('%s names itself', (className, error) => {
  expect(error.name).toBe(className);
});

test('every error class of those modules has a sample', () => {
  const classes = [domainErrors, storeAdminErrors, httpErrors, processingErrors, { TimeoutError }]
    .flatMap((module) => Object.values(module))
    .filter((value) => typeof value === 'function' && value.prototype instanceof Error);
  expect(new Set(classes)).toEqual(new Set(samples.map((error) => error.constructor)));
});

/** The folders whose code goes into the functions' bundles. */
const BUNDLED = [
  'domain',
  'functions',
  'http',
  'observability',
  'processing',
  'runtime',
  'secrets',
  'store',
  'webhooks',
];

test('every error class in the bundled code names itself', () => {
  const root = path.join(__dirname, '../..');
  const unnamed = BUNDLED.flatMap((folder) =>
    readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) => {
        const source = readFileSync(path.join(root, folder, file), 'utf8');
        return [...source.matchAll(/class (\w+) extends \w*Error\b[^{]*\{/g)]
          .filter((match) => !source.slice(match.index).includes(`override name = '${match[1]}';`))
          .map((match) => `${folder}/${file}: ${match[1]}`);
      }),
  );
  expect(unnamed).toEqual([]);
});
