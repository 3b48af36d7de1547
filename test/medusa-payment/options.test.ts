// The provider's options, as Medusa's loader checks them: each missing or malformed one is refused by name.
import medusaProvider, { MerchantPaymentsProvider } from '../../packages/medusa-payment/src';
import { newWebhookSecret } from '../../webhooks/signing';

const VALID = {
  api_url: 'https://payments.example.com/',
  storefront_token: 'shop-token-123',
  admin_token: 'admin-token-456',
  webhook_secret: newWebhookSecret(),
  url_success: 'https://shop.example/order/confirmed',
  url_failed: 'https://shop.example/checkout?step=payment',
};

const refusal = (options: unknown) => {
  try {
    MerchantPaymentsProvider.validateOptions(options as Record<string, unknown>);
  } catch (error) {
    return error as Error & { type: string; code: string };
  }
  throw new Error('accepted');
};

test('Medusa loads it as its loader does: the default export names the module and the service', async () => {
  // What @medusajs/modules-sdk's loadModuleProvider does with a provider package.
  const loaded = (medusaProvider as { default?: typeof medusaProvider }).default ?? medusaProvider;
  expect(loaded.module).toBe('payment');
  const [service] = loaded.services;
  await service.validateOptions(VALID);
  const provider = new service({}, VALID);
  expect(provider.getIdentifier()).toBe('merchant-payments');
  expect(MerchantPaymentsProvider._isPaymentProvider).toBe(true);
});

test.each([
  ['api_url', undefined, 'Option api_url: is required'],
  ['api_url', 'payments.example.com', 'Option api_url: is not a URL'],
  ['api_url', 'http://payments.example.com', 'Option api_url: must be https (http only on localhost)'],
  ['api_url', 'ftp://payments.example.com', 'Option api_url: must be https'],
  ['storefront_token', undefined, 'Option storefront_token: is required'],
  ['storefront_token', 'has a space in it', 'Option storefront_token: must be 8 to 512 printable'],
  ['admin_token', '', 'Option admin_token: is required'],
  ['admin_token', 'short', 'Option admin_token: must be 8 to 512 printable'],
  ['webhook_secret', undefined, 'Option webhook_secret: is required'],
  ['webhook_secret', 'not-a-secret', 'Option webhook_secret: must be whsec_'],
  ['webhook_secret', `whsec_${Buffer.alloc(8).toString('base64')}`, 'Option webhook_secret: must be whsec_'],
  ['url_success', undefined, 'Option url_success: is required'],
  ['url_failed', 'mailto:shop@example.com', 'Option url_failed: must be https or http'],
  ['title', '', 'Option title: must be 1 to 50 characters'],
  ['title', 'x'.repeat(51), 'Option title: must be 1 to 50 characters'],
  ['max_attempts', 0, 'Option max_attempts: must be a whole number from 1 to 10'],
  ['max_attempts', 2.5, 'Option max_attempts: must be a whole number from 1 to 10'],
  ['request_timeout_ms', '5000', 'Option request_timeout_ms: must be a whole number from 1000 to 120000'],
])('%s = %p is refused by name', (name, value, message) => {
  const error = refusal({ ...VALID, [name]: value });
  expect(error.message).toContain(message);
  expect(error.type).toBe('invalid_data');
  expect(error.code).toBe('invalid_option');
});

test('no options at all are refused, naming the ones needed', () => {
  expect(refusal(undefined).message).toMatch(/api_url, storefront_token, admin_token, webhook_secret/);
});

test('a refused token is never repeated in the message', () => {
  const error = refusal({ ...VALID, admin_token: 'secret with spaces' });
  expect(error.message).not.toContain('secret with spaces');
});

test('http is allowed for a plugin on this machine, and for the shop URLs', () => {
  expect(() =>
    MerchantPaymentsProvider.validateOptions({
      ...VALID,
      api_url: 'http://127.0.0.1:3000',
      url_success: 'http://localhost:8000/ok',
    }),
  ).not.toThrow();
});
