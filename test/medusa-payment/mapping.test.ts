// The mapping from the plugin's invoices to Medusa's sessions and webhook actions, amounts and ids, without a stack.
import { createServer } from 'node:http';
import type { IPaymentProvider, PaymentSessionStatus } from '@medusajs/types';
import { MerchantPaymentsProvider } from '../../packages/medusa-payment/src';
import { decimalString } from '../../packages/medusa-payment/src/amounts';
import { invoiceForeignId, refundForeignId } from '../../packages/medusa-payment/src/ids';
import { SESSION_STATUS, WEBHOOK_ACTION } from '../../packages/medusa-payment/src/mapping';
import { WEBHOOK_TOLERANCE_SECONDS } from '../../packages/medusa-payment/src/webhook';
import { listen, type Listening } from '../../local/listen';
import { newWebhookSecret, signedHeaders } from '../../webhooks/signing';

const secret = newWebhookSecret();
/** The foreign_ids the stand-in plugin holds: GET answers 200 for them, 404 for any other. */
const held = new Set<string>();
let server: Listening;
let provider: MerchantPaymentsProvider;

beforeAll(async () => {
  const standIn = createServer((request, response) => {
    const foreignId = decodeURIComponent(request.url!.split('/').pop()!);
    const found = request.method === 'GET' && held.has(foreignId);
    response.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify(
        found ? { foreign_id: foreignId } : { error: { code: 'not_found', message: 'No such invoice' } },
      ),
    );
  });
  server = await listen(standIn, 0);
  const url = server.url;
  provider = new MerchantPaymentsProvider(
    {},
    {
      api_url: url,
      storefront_token: 'shop-token-123',
      admin_token: 'admin-token-456',
      webhook_secret: secret,
      url_success: 'https://shop.example/ok',
      url_failed: 'https://shop.example/failed',
    },
  );
});
afterAll(() => server.close());

test("the class is Medusa's IPaymentProvider (checked by the compiler against @medusajs/types)", () => {
  const asMedusa: IPaymentProvider = provider;
  expect(asMedusa.getIdentifier()).toBe('merchant-payments');
});

describe('amounts: every shape Medusa gives, as an exact decimal string', () => {
  test.each([
    ['a number', 25.5, '25.5'],
    ['a float that is not exactly its decimal', 0.1, '0.1'],
    ['a string', '25.50', '25.5'],
    ['a raw value', { value: '1234567890123456789.12345678', precision: 20 }, '1234567890123456789.12345678'],
    [
      "Medusa's BigNumber (raw beats numeric)",
      { numeric: 19.99, raw: { value: '19.99000000000000000001', precision: 22 }, bigNumber: {} },
      null,
    ],
    ["Medusa's BigNumber", { numeric: 19.99, raw: { value: '19.99', precision: 20 } }, '19.99'],
    ['a bignumber.js value', { toFixed: () => '1000000.00000001' }, '1000000.00000001'],
  ])('%s', (_what, value, expected) => {
    if (expected === null) {
      expect(() => decimalString(value, 'amount')).toThrow(/more than 8 decimal places/);
    } else {
      expect(decimalString(value, 'amount')).toBe(expected);
    }
  });

  test('a sum made in floats is refused rather than rounded', () => {
    expect(() => decimalString(0.1 + 0.2, 'amount')).toThrow('amount has more than 8 decimal places');
  });

  test.each([0, -5, 'abc', Number.NaN, null, {}])('%p is refused', (value) => {
    expect(() => decimalString(value, 'amount')).toThrow(
      /amount (is not a number|must be greater than zero)/,
    );
  });
});

describe('ids', () => {
  test("a session's invoices are stable, readable and within the plugin's foreign_id rule", () => {
    const id = invoiceForeignId('payses_01JABCDEFGHJKMNPQRSTVWXYZ0', 2);
    expect(id).toBe('ms.payses_01JABCDEFGHJKMNPQRSTVWXYZ0.r2');
    expect(invoiceForeignId('payses_01JABCDEFGHJKMNPQRSTVWXYZ0', 2)).toBe(id);
  });

  test('an id too long or with other characters becomes a digest, still stable and unique to it', () => {
    const long = invoiceForeignId('x'.repeat(300), 999);
    const odd = invoiceForeignId('session/with spaces', 1);
    for (const id of [long, odd]) expect(id).toMatch(/^(?!\.\.?$)[A-Za-z0-9._:-]{1,64}$/);
    expect(invoiceForeignId('x'.repeat(300), 999)).toBe(long);
    expect(invoiceForeignId('x'.repeat(301), 999)).not.toBe(long);
  });

  test("a refund is named by Medusa's idempotency key, and needs one", () => {
    expect(refundForeignId('ref_01JABC')).toBe('mr.ref_01JABC');
    expect(() => refundForeignId(undefined)).toThrow("The refund's idempotency key is missing");
  });
});

test.each<[string, PaymentSessionStatus, string]>([
  ['creating', 'pending', 'pending'],
  ['awaiting_payment', 'pending', 'pending'],
  ['confirming', 'pending_authorization', 'pending_authorization'],
  ['paid', 'captured', 'captured'],
  ['underpaid', 'canceled', 'canceled'],
  ['expired', 'canceled', 'canceled'],
  ['cancelled', 'canceled', 'canceled'],
  ['failed', 'error', 'failed'],
])('an invoice %s: session %s, webhook action %s', (status, session, action) => {
  expect(SESSION_STATUS[status as keyof typeof SESSION_STATUS]).toBe(session);
  expect(WEBHOOK_ACTION[status as keyof typeof WEBHOOK_ACTION]).toBe(action);
});

describe('webhooks', () => {
  let sequence = 0;
  const invoice = (status: string, metadata: Record<string, string>) => ({
    foreign_id: 'ms.payses_1.r1',
    status,
    amount: '25.50000000',
    currency: 'EUR',
    metadata,
  });
  /** A webhook as Medusa's /hooks/payment route hands it over: the parsed body, the raw body and Node's headers. */
  const delivered = (type: string, data: unknown, signWith = secret, at = Math.floor(Date.now() / 1000)) => {
    sequence += 1;
    const id = `evt_${sequence}`;
    const body = JSON.stringify({
      id,
      type,
      created_at: new Date().toISOString(),
      sequence,
      store_id: 'default',
      data,
    });
    return {
      data: JSON.parse(body),
      rawData: Buffer.from(body),
      headers: signedHeaders(id, at, body, [signWith]),
    };
  };
  const ours = { medusa_session_id: 'payses_1', medusa_revision: '1' };

  test('invoice.paid is captured, naming the session and the amount', async () => {
    expect(await provider.getWebhookActionAndData(delivered('invoice.paid', invoice('paid', ours)))).toEqual({
      action: 'captured',
      data: { session_id: 'payses_1', amount: '25.50000000' },
    });
  });

  test('the action follows the view: an exception event on a confirming invoice is pending_authorization', async () => {
    const result = await provider.getWebhookActionAndData(
      delivered('invoice.exception', invoice('confirming', ours)),
    );
    expect(result.action).toBe('pending_authorization');
  });

  test('headers in any case and as lists verify too', async () => {
    const webhook = delivered('invoice.expired', invoice('expired', ours));
    const headers = Object.fromEntries(
      Object.entries(webhook.headers).map(([k, v]) => [k.toUpperCase(), [v]]),
    );
    expect((await provider.getWebhookActionAndData({ ...webhook, headers })).action).toBe('canceled');
  });

  test('a cancelled invoice is canceled, unless the session moved on to a new amount', async () => {
    const cancelled = invoice('cancelled', ours);
    expect((await provider.getWebhookActionAndData(delivered('invoice.cancelled', cancelled))).action).toBe(
      'canceled',
    );
    held.add('ms.payses_1.r2');
    expect(await provider.getWebhookActionAndData(delivered('invoice.cancelled', cancelled))).toEqual({
      action: 'not_supported',
    });
  });

  test.each([
    ['a refund event', 'refund.confirmed', { foreign_id: 'mr.ref_1', status: 'confirmed' }],
    ['an invoice not made by the provider', 'invoice.paid', invoice('paid', {})],
    ['an event without data', 'invoice.paid', null],
    ['an event type from a later version', 'invoice.disputed', invoice('disputed', ours)],
  ])('%s is not_supported, never a throw', async (_what, type, data) => {
    expect(await provider.getWebhookActionAndData(delivered(type, data))).toEqual({
      action: 'not_supported',
    });
  });

  test('a bad signature is refused', async () => {
    const forged = delivered('invoice.paid', invoice('paid', ours), newWebhookSecret());
    await expect(provider.getWebhookActionAndData(forged)).rejects.toMatchObject({
      code: 'invalid_signature',
      message: expect.stringContaining('does not verify'),
    });
  });

  test('a body changed after signing is refused', async () => {
    const webhook = delivered('invoice.paid', invoice('paid', ours));
    const altered = Buffer.from(webhook.rawData.toString().replace('25.50000000', '99.00000000'));
    await expect(provider.getWebhookActionAndData({ ...webhook, rawData: altered })).rejects.toMatchObject({
      code: 'invalid_signature',
    });
  });

  test('a webhook Medusa checks late is still believed; one over an hour old is refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    const late = delivered('invoice.paid', invoice('paid', ours), secret, now - 600);
    expect(await provider.getWebhookActionAndData(late)).toMatchObject({ action: 'captured' });
    const old = delivered(
      'invoice.paid',
      invoice('paid', ours),
      secret,
      now - WEBHOOK_TOLERANCE_SECONDS - 60,
    );
    await expect(provider.getWebhookActionAndData(old)).rejects.toMatchObject({ code: 'invalid_signature' });
  });

  test('without the raw body nothing can be verified', async () => {
    const webhook = delivered('invoice.paid', invoice('paid', ours));
    await expect(
      provider.getWebhookActionAndData({ ...webhook, rawData: undefined as unknown as string }),
    ).rejects.toMatchObject({ code: 'invalid_signature', message: expect.stringContaining('raw body') });
  });
});
