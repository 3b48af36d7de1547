// A delivery from the service: verified over its raw bytes, then read into the domain's event.
import { CallbackSignatureError } from '../../domain/errors';
import type { ProcessingKeys } from '../../domain/ports';
import { verifyCallback } from '../../processing/callbacks';
import { sign } from '../../processing/signing';
import { KEYS, NEW_KEYS, keySequence } from './fake-service';

const headersFor = (keys: ProcessingKeys, body: Buffer) => ({
  'x-processing-key': keys.apiKey,
  'x-processing-signature': sign(keys.secretKey, body),
});

const bytes = (payload: unknown) => Buffer.from(JSON.stringify(payload), 'utf8');

async function read(payload: unknown) {
  const body = Buffer.isBuffer(payload) ? payload : bytes(payload);
  return verifyCallback(body, headersFor(KEYS, body), keySequence(KEYS));
}

describe('the signature', () => {
  const body = bytes({ foreign_id: 'order-1', type: 'invoice', status: 'pending' });

  test('signed with keys rotated since they were cached: accepted after one refresh', async () => {
    const keys = keySequence(KEYS, NEW_KEYS);

    await expect(verifyCallback(body, headersFor(NEW_KEYS, body), keys)).resolves.toBeDefined();
    expect(keys.refreshes).toBe(1);
  });

  test.each([
    ['another secret', { ...headersFor(KEYS, body), 'x-processing-signature': sign('other', body) }],
    ['another key', { ...headersFor(KEYS, body), 'x-processing-key': 'other-key' }],
    ['another body', headersFor(KEYS, bytes({ foreign_id: 'order-2' }))],
  ])('with %s: refused after looking for new keys once', async (_name, headers) => {
    const keys = keySequence(KEYS, NEW_KEYS);

    await expect(verifyCallback(body, headers, keys)).rejects.toBeInstanceOf(CallbackSignatureError);
    expect(keys.refreshes).toBe(1);
  });

  test.each([
    ['no key', { 'x-processing-signature': sign(KEYS.secretKey, body) }],
    ['no signature', { 'x-processing-key': KEYS.apiKey }],
    ['no headers', {}],
  ])('with %s: refused without asking for the keys', async (_name, headers) => {
    const keys = keySequence(KEYS);

    await expect(verifyCallback(body, headers, keys)).rejects.toBeInstanceOf(CallbackSignatureError);
    expect(keys.reads + keys.refreshes).toBe(0);
  });
});

describe('the event', () => {
  test('an invoice: its status, error and payment, amounts exact to the last digit', async () => {
    const body = Buffer.from(
      '{"foreign_id":"order-1~2","type":"invoice","status":"pending","error":"",' +
        '"currency_sent":{"currency":"BTC","amount":0.000123456789012345678,"remaining_amount":"0.1"}}',
    );

    await expect(read(body)).resolves.toMatchObject({
      kind: 'invoice',
      upstreamForeignId: 'order-1~2',
      status: 'pending',
      error: undefined,
      payment: { currency: 'BTC', amount: '0.000123456789012345678', remainingAmount: '0.1' },
    });
  });

  test('an invoice: what was credited and its fees, read into the settlement', async () => {
    const body = Buffer.from(
      '{"foreign_id":"order-1","type":"invoice","status":"confirmed",' +
        '"currency_sent":{"currency":"BTC","amount":"0.00046"},' +
        '"currency_received":{"currency":"EUR","amount":25.245},' +
        '"fees":[{"type":"fee_crypto_deposit","currency":"EUR","amount":0.25},' +
        '{"type":"fee_exchange","currency":"EUR","amount":0.005}]}',
    );

    await expect(read(body)).resolves.toMatchObject({
      kind: 'invoice',
      payment: { currency: 'BTC', amount: '0.00046' },
      settlement: {
        currency: 'EUR',
        net: '25.24500000',
        fees: [{ currency: 'EUR', amount: '0.25500000' }],
      },
    });
  });

  test.each(['withdrawal', 'withrawal_exchange', 'withdrawal_exchange', 'withdrawal_instant_exchange'])(
    'a withdrawal of type %s',
    async (type) => {
      await expect(
        read({ foreign_id: 'refund-1', type, status: 'failed', error: 'address rejected' }),
      ).resolves.toMatchObject({
        kind: 'withdrawal',
        foreignId: 'refund-1',
        status: 'failed',
        error: 'address rejected',
      });
    },
  );

  test.each([
    ['another type', { foreign_id: 'x', type: 'exchange', status: 'confirmed' }],
    ['no foreign_id', { type: 'invoice', status: 'confirmed' }],
    ['a status that is not text', { foreign_id: 'x', type: 'invoice', status: 3 }],
  ])('%s: other', async (_name, payload) => {
    await expect(read(payload)).resolves.toEqual({ kind: 'other' });
  });

  test.each([
    ['not JSON', Buffer.from('status=confirmed')],
    ['a JSON list', bytes([{ foreign_id: 'x' }])],
    ['JSON null', bytes(null)],
  ])('a signed body that is %s: nothing to apply', async (_name, body) => {
    await expect(read(body)).resolves.toBeUndefined();
  });
});
