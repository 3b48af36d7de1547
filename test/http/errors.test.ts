// Every error a route can meet maps to one status and code; nothing unexpected leaks its message. The client's
// errors reach a route as the adapter translates them for the domain, so they go through that translation here.
import { InternalServerError, ThrottlingException } from '@aws-sdk/client-dynamodb';
import * as domain from '../../domain/errors';
import { HttpError, InvalidRequestError, toErrorResponse } from '../../http/errors';
import {
  ProcessingAuthError,
  ProcessingBadContentError,
  ProcessingConnectionError,
  ProcessingFeatureDisabledError,
  ProcessingInvalidStateError,
  ProcessingNotFoundError,
  ProcessingTimeoutError,
  ProcessingUpstreamError,
  ProcessingValidationError,
  errorFromResponse,
} from '../../processing/errors';
import { toServiceError } from '../../processing/translate';
import { NoTimeLeftError } from '../../runtime/aws-clients';

const answer = (error: unknown) => toErrorResponse(toServiceError(error));

const upstream = { operation: 'createInvoice', code: 'x', message: 'said by the service with key abc' };

const cases: [what: string, error: unknown, status: number, code: string][] = [
  [
    'an HttpError',
    new HttpError('unsupported_media_type', 'The body must be JSON'),
    415,
    'unsupported_media_type',
  ],
  ['bad input', new InvalidRequestError({ amount: 'must be a decimal' }), 400, 'invalid_request'],
  ['not found', new domain.NotFoundError('The invoice'), 404, 'not_found'],
  ['a conflict', new domain.ConflictError('foreign_id_conflict', 'Another body'), 409, 'foreign_id_conflict'],
  ['in progress', new domain.InProgressError(2), 409, 'in_progress'],
  ['not configured', new domain.NotConfiguredError('The keys are missing'), 503, 'not_configured'],
  ['not ready', new domain.NotReadyError('The invoice'), 503, 'not_ready'],
  [
    'a field the domain refuses',
    new domain.InvalidFieldsError({ webhook_url: 'is refused: not https' }),
    400,
    'invalid_request',
  ],
  ['a bad callback signature', new domain.CallbackSignatureError(), 403, 'invalid_signature'],
  [
    'a refund over what is left',
    new domain.RefundBoundError({ amount: '0.24500000', currency: 'EUR' }),
    409,
    'refund_exceeds_refundable',
  ],
  [
    'the service refusing a field',
    new ProcessingValidationError({ ...upstream, fields: { amount: 'low' } }),
    422,
    'rejected_by_processor',
  ],
  [
    'the service knowing the foreign_id',
    new ProcessingValidationError({ ...upstream, fields: { foreign_id: 'already taken' } }),
    409,
    'duplicate_foreign_id',
  ],
  ['the service refusing in this state', new ProcessingInvalidStateError(upstream), 409, 'invalid_state'],
  ['the service not finding it', new ProcessingNotFoundError(upstream), 404, 'not_found'],
  [
    'a disabled feature',
    new ProcessingFeatureDisabledError({ ...upstream, feature: 'invoices_enabled' }),
    503,
    'feature_disabled',
  ],
  [
    'a connection that surely sent nothing',
    new ProcessingConnectionError({ ...upstream, outcomeUnknown: false }),
    502,
    'processor_unreachable',
  ],
  [
    'a connection lost after sending',
    new ProcessingConnectionError({ ...upstream, outcomeUnknown: true }),
    504,
    'processor_timeout',
  ],
  [
    'a timeout before sending',
    new ProcessingTimeoutError({ ...upstream, outcomeUnknown: false }),
    504,
    'processor_timeout',
  ],
  ['the service refusing our keys', new ProcessingAuthError(upstream), 502, 'processor_auth_failed'],
  ['a 5xx from the service', new ProcessingUpstreamError(upstream), 502, 'processor_error'],
  ['any other answer from the service', new ProcessingBadContentError(upstream), 502, 'processor_error'],
];

// Titled by what, status and code; the error itself would print as NaN.
const titled = cases.map(([what, error, status, code]) => [what, status, code, error] as const);

test.each(titled)('%s: %i %s', (_what, status, code, error) => {
  const response = answer(error);

  expect({ status: response.status, code: response.code }).toEqual({ status, code });
  // What the service said may carry anything; the answer says it in our words.
  expect(response.message).not.toContain('abc');
});

test("the table meets every error kind the domain exports, as thrown or as the client's errors become", () => {
  const kinds = Object.values(domain).filter(
    (value): value is typeof domain.DomainError =>
      typeof value === 'function' && value.prototype instanceof domain.DomainError,
  );
  const met = new Set(cases.map(([, error]) => (toServiceError(error) as object).constructor));
  expect(kinds.filter((kind) => !met.has(kind)).map((kind) => kind.name)).toEqual([]);
});

test("an HttpError and bad input keep their message and fields; the service's field names become ours", () => {
  expect(answer(new InvalidRequestError({ amount: 'must be a decimal', email: 'invalid' }))).toEqual({
    status: 400,
    code: 'invalid_request',
    message: 'Invalid fields: amount, email',
    fields: { amount: 'must be a decimal', email: 'invalid' },
  });
  const refused = new ProcessingValidationError({
    ...upstream,
    fields: { email_user: 'invalid', amount: 'low' },
  });
  expect(answer(refused).fields).toEqual({ email: 'invalid', amount: 'low' });
});

test("the service's words on a travel-rule party never reach a caller or a log; its fields get our names", () => {
  const body = JSON.stringify({
    errors: {
      'sender_data.first_name': ['Quotedname is not allowed'],
      'sender_data.legal_name': 'Quotedcorp is unknown',
      'receiver_data.country_of_registration': 'Quotedland',
      sender_type: 'Quotedtype',
      amount: 'low',
    },
  });
  const refused = errorFromResponse('createInvoice', 400, body);

  const answered = answer(refused);
  expect(answered.fields).toEqual({
    'sender.first_name': 'refused by the payment service',
    'sender.company_name': 'refused by the payment service',
    'receiver.country': 'refused by the payment service',
    'sender.type': 'refused by the payment service',
    amount: 'low',
  });
  expect(JSON.stringify(answered)).toContain('low'); // the capture holds the service's other words
  expect(`${JSON.stringify(answered)} ${refused.message}`).not.toMatch(/Quoted/);
});

test('a refund over what is left names what is left', () => {
  const refundable = { amount: '0.24500000', currency: 'EUR' };
  expect(answer(new domain.RefundBoundError(refundable))).toEqual({
    status: 409,
    code: 'refund_exceeds_refundable',
    message: 'At most 0.24500000 EUR of this order is left to refund',
    refundable,
  });
});

test('a retry is invited where one converges: in progress after its seconds, not ready after 5', () => {
  expect(answer(new domain.InProgressError(3)).headers).toEqual({ 'retry-after': '3' });
  expect(answer(new domain.NotReadyError('The invoice')).headers).toEqual({ 'retry-after': '5' });
});

test('a disabled feature is named, or described when the service did not name it', () => {
  expect(
    answer(new ProcessingFeatureDisabledError({ ...upstream, feature: 'invoices_enabled' })).message,
  ).toBe('The merchant account does not have invoices_enabled enabled');
  expect(answer(new ProcessingFeatureDisabledError(upstream)).message).toBe(
    'The merchant account does not have the feature enabled',
  );
});

test.each([
  ['an unexpected error', new TypeError('cannot read x of undefined at /var/task/index.js')],
  ['a domain error of no known kind', new domain.DomainError('odd', 'an internal detail')],
  ['something thrown that is not an Error', 'a string'],
])('%s: a bare 500 with no details', (_what, error) => {
  expect(answer(error)).toEqual({ status: 500, code: 'internal_error', message: 'Internal error' });
});

// Found by the soak (issue 31): a throttled, failing or unreachable DynamoDB answered the unexpected 500.
test.each([
  ['DynamoDB throttling', new ThrottlingException({ message: 'Rate exceeded', $metadata: {} } as never)],
  ["DynamoDB's 500", new InternalServerError({ message: 'Internal error', $metadata: {} } as never)],
  [
    'no connection in time',
    Object.assign(new Error('the request socket did not establish a connection within 1000 ms'), {
      name: 'TimeoutError',
      $metadata: { attempts: 3 },
    }),
  ],
  ['a call the invocation had no time left to make', new NoTimeLeftError()],
  [
    'a refused connection, after the retries',
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED', $metadata: {} }),
  ],
])('%s, past the SDK retries: a 503 to retry, never the unexpected 500', (_what, error) => {
  expect(answer(error)).toEqual({
    status: 503,
    code: 'temporarily_unavailable',
    message: expect.stringMatching(/retry/),
    headers: { 'retry-after': '1' },
  });
});

test('a code without a status in the table does not compile', () => {
  // @ts-expect-error: a conflict's code is one the status table knows
  expect(new domain.ConflictError('no_such_code', 'message').code).toBe('no_such_code');
  // @ts-expect-error: so is the code of an error the HTTP layer raises itself
  expect(new HttpError('no_such_code', 'message').status).toBeUndefined();
});
