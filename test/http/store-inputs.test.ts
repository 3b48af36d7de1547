// A store's create and change bodies, read by one list of its settings: what each gives the domain.
import { parse } from 'lossless-json';
import { HttpError } from '../../http/errors';
import type { ApiRequest } from '../../http/route';
import { newStoreInput, storeChangesInput } from '../../http/store-inputs';

const request = (json: string, path: Record<string, string> = {}): ApiRequest => ({
  body: parse(json),
  rawBody: Buffer.from(json),
  headers: { host: 'api.example', 'x-forwarded-proto': 'https' },
  path,
  query: {},
});

const EVERY_SETTING = `{
  "name": "Shop A",
  "webhook_url": "https://shop-a.example/hooks",
  "processing": { "api_key": "key", "secret_key": "secret", "base_url": "https://pay.example" },
  "travel_rule": "required",
  "travel_rule_sender": "off",
  "claim_link_days": 7,
  "requests_per_second": 20
}`;

const DOMAIN_SETTINGS = {
  name: 'Shop A',
  webhookUrl: 'https://shop-a.example/hooks',
  processing: { apiKey: 'key', secretKey: 'secret', baseUrl: 'https://pay.example' },
  travelRule: 'required',
  travelRuleSender: 'off',
  claimLinkDays: 7,
  requestsPerSecond: 20,
};

test('a create gives every setting by the domain name, and only those it names', () => {
  const withId = `{ "id": "shop-a", ${EVERY_SETTING.slice(1)}`;
  expect(newStoreInput(request(withId))).toEqual({
    store: { id: 'shop-a', ...DOMAIN_SETTINGS },
    apiBase: 'https://api.example',
  });
  expect(newStoreInput(request('{ "id": "shop-b", "name": "B", "webhook_url": null }')).store).toStrictEqual({
    id: 'shop-b',
    name: 'B',
  });
});

test('a change gives what it names, a null clears only the endpoint, the term and the limit', () => {
  expect(storeChangesInput(request(EVERY_SETTING, { store_id: 'shop-a' })).changes).toEqual(DOMAIN_SETTINGS);
  const nulls =
    '{ "name": null, "webhook_url": null, "travel_rule": null, "claim_link_days": null, "requests_per_second": null }';
  expect(storeChangesInput(request(nulls, { store_id: 'shop-a' })).changes).toStrictEqual({
    webhookUrl: null,
    claimLinkDays: null,
    requestsPerSecond: null,
  });
  expect(storeChangesInput(request('{}', { store_id: 'shop-a' })).changes).toStrictEqual({});
});

test('a change is refused by field, as a create is', () => {
  expect(() => storeChangesInput(request('{ "travel_rule": "sometimes" }', { store_id: 'shop-a' }))).toThrow(
    HttpError,
  );
  expect(() => newStoreInput(request('{ "id": "shop-a" }'))).toThrow(HttpError);
});
