// Every documented error shape (spec section 7) and every unreadable answer reaches the caller typed.
import { ProcessingClient } from '../../processing/client';
import {
  ProcessingAuthError,
  ProcessingBadContentError,
  ProcessingError,
  ProcessingFeatureDisabledError,
  ProcessingInvalidStateError,
  ProcessingNotFoundError,
  ProcessingUpstreamError,
  ProcessingValidationError,
} from '../../processing/errors';
import { KEYS, keySequence, startFakeService, type FakeService } from './fake-service';

let service: FakeService;
let client: ProcessingClient;

beforeEach(async () => {
  service = await startFakeService();
  client = new ProcessingClient({ baseUrl: service.url, keys: keySequence(KEYS), maxRetries: 0 });
});

afterEach(async () => {
  await client.close();
  await service.close();
});

async function failure(status: number, body: string | object): Promise<ProcessingError> {
  service.replies({ status, body });
  const error = await client.cancelInvoice('inv-1').then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProcessingError);
  return error as ProcessingError;
}

const validationBody = {
  errors: {
    foreign_id: 'The foreign id has already been taken.',
    amount: 'The amount must be at least 1.',
    email_user: ['The email user must be a valid email address.', 'Second message.'],
  },
};

describe('errors from the service', () => {
  it('maps the 400 errors map to ProcessingValidationError with every field kept', async () => {
    const error = await failure(400, validationBody);

    expect(error).toBeInstanceOf(ProcessingValidationError);
    expect(error).toMatchObject({
      status: 400,
      code: 'validation_error',
      operation: 'cancelInvoice',
      rawBody: JSON.stringify(validationBody),
      fields: {
        foreign_id: 'The foreign id has already been taken.',
        amount: 'The amount must be at least 1.',
        email_user: 'The email user must be a valid email address.; Second message.',
      },
    });
    expect((error as ProcessingValidationError).isDuplicateForeignId).toBe(true);
    expect(error.message).toContain('foreign_id');
  });

  it('tells a duplicate foreign_id from other foreign_id failures', async () => {
    const error = await failure(400, { errors: { foreign_id: 'The foreign id field is required.' } });
    expect((error as ProcessingValidationError).isDuplicateForeignId).toBe(false);
  });

  it.each([
    ['The invoices_enabled feature is disabled for this merchant.', 'invoices_enabled'],
    ['Invoices are not available.', undefined],
  ])('maps 400 {message: %p} to ProcessingFeatureDisabledError', async (message, feature) => {
    const error = await failure(400, { message });
    expect(error).toBeInstanceOf(ProcessingFeatureDisabledError);
    expect(error).toMatchObject({ status: 400, code: 'feature_disabled', feature });
  });

  it('maps bad_content_format to ProcessingBadContentError', async () => {
    const error = await failure(400, { error: 'Bad content format', code: 'bad_content_format' });
    expect(error).toBeInstanceOf(ProcessingBadContentError);
    expect(error).toMatchObject({ status: 400, code: 'bad_content_format' });
  });

  it.each(['bad_header_signature', 'required_header_signature', 'bad_header_key', 'required_header_key'])(
    'maps 403 %s to ProcessingAuthError',
    async (code) => {
      const error = await failure(403, { error: 'Forbidden', code });
      expect(error).toBeInstanceOf(ProcessingAuthError);
      expect(error).toMatchObject({ status: 403, code });
    },
  );

  it.each([
    { errors: { error: 'Invoice cannot be cancelled in its current state.', code: 'invalid_invoice_state' } },
    { error: 'Invoice cannot be cancelled in its current state.', code: 'invalid_invoice_state' },
  ])('maps a refused cancel %p to ProcessingInvalidStateError', async (body) => {
    const error = await failure(400, body);
    expect(error).toBeInstanceOf(ProcessingInvalidStateError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_invoice_state' });
    expect(error.message).toContain('cannot be cancelled');
  });

  it('maps 404 to ProcessingNotFoundError', async () => {
    const error = await failure(404, { error: 'Not found' });
    expect(error).toBeInstanceOf(ProcessingNotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
  });

  it.each([
    [500, '{"error":"boom"}', 'upstream_error'],
    [502, '<html>Bad gateway</html>', 'upstream_error'],
    [409, '{"what":"ever"}', 'unexpected_response'],
    [400, 'not json', 'unexpected_response'],
  ])('maps %i %s to ProcessingUpstreamError', async (status, body, code) => {
    const error = await failure(status, body);
    expect(error).toBeInstanceOf(ProcessingUpstreamError);
    expect(error).toMatchObject({ status, code, rawBody: body });
  });

  it.each([
    ['not json', 'unreadable answer'],
    ['{"data":[{"currency":"BTC","balance":1e500000}]}', 'unreadable answer'],
    ['{"data":[{"currency":"BTC","balance":1e9000000000000000}]}', 'unreadable answer'],
    ['{"data":{"id":1}}', 'expected list'],
    ['{"nodata":[]}', 'expected list'],
  ])('maps a 200 with %s to ProcessingUpstreamError', async (body, detail) => {
    service.replies({ status: 200, body });
    const error = await client.listBalances().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProcessingUpstreamError);
    expect(error).toMatchObject({ status: 200, code: 'invalid_response', rawBody: body });
    expect((error as Error).message).toContain(detail);
  });

  it('never carries the key, secret or signature, even when the service echoes them', async () => {
    service.replies((request) => ({
      status: 403,
      body: {
        error: `bad key ${KEYS.apiKey} secret ${KEYS.secretKey} sig ${String(request.headers['x-processing-signature'])}`,
        code: 'bad_header_signature',
      },
    }));
    const error = (await client.listBalances().catch((e: unknown) => e)) as ProcessingError;
    const signature = String(service.received[0].headers['x-processing-signature']);

    expect(error).toBeInstanceOf(ProcessingAuthError);
    for (const text of [error.message, error.stack ?? '', JSON.stringify(error), String(error.rawBody)]) {
      for (const secret of [KEYS.apiKey, KEYS.secretKey, signature]) expect(text).not.toContain(secret);
    }
    expect(error.rawBody).toContain('[redacted]');
  });
});
