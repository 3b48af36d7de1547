import { Webhook } from 'standardwebhooks';
import { isWebhookSecret, newWebhookSecret, signedHeaders } from '../../webhooks/signing';

test('the standardwebhooks package verifies our signature, with either secret during a rotation', () => {
  const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
  const body = JSON.stringify({ id: 'evt_1', type: 'invoice.paid', data: { amount: '1.00000000' } });
  const headers = signedHeaders('evt_1', Math.floor(Date.now() / 1000), body, [current, previous]);
  expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
  expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
  expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
});

test('a secret is whsec_ and the base64 of 24 to 64 bytes', () => {
  expect(isWebhookSecret(newWebhookSecret())).toBe(true);
  expect(isWebhookSecret(`whsec_${Buffer.alloc(16).toString('base64')}`)).toBe(false);
  expect(isWebhookSecret(Buffer.alloc(32).toString('base64'))).toBe(false);
});
