import { startHarness, type Harness } from '../../../test/support/local-stack';
import { startMedusa, type MedusaServer } from './medusa';
import { ADMIN, startDatabase, type Database } from './postgres';
import { startPluginGate, type PluginGate } from './plugin-gate';
import { startWebhookGate, type WebhookGate } from './webhook-gate';

export interface MedusaAnswer<T = any> {
  status: number;
  body: T;
}

export type MedusaCaller = <T = any>(
  method: string,
  path: string,
  body?: unknown,
) => Promise<MedusaAnswer<T>>;

/** The provider's id in Medusa: `pp_<identifier>_<id>` from medusa-config.js. */
export const PROVIDER_ID = 'pp_merchant-payments_default';
/** Where Medusa takes our webhooks for that provider. */
const WEBHOOK_PATH = '/hooks/payment/merchant-payments_default';
const CURRENCY = 'eur';
const COUNTRY = 'de';
/** The product's price in the shop, and the shipping's: a cart of one costs their sum. */
export const ITEM_PRICE = 25.5;
export const SHIPPING_PRICE = 5;

export interface Shop {
  /** Our local stack (sandbox, dynalite, gateway) that the provider calls and that sends webhooks to Medusa. */
  plugin: Harness;
  /** Our webhooks pass through it on their way to Medusa. */
  gate: WebhookGate;
  /** The provider's calls pass through it on their way to our API. */
  pluginGate: PluginGate;
  medusa: MedusaServer;
  database: Database;
  /** Medusa's Admin API, as the shop's admin user. */
  admin: MedusaCaller;
  /** Medusa's Store API, with the shop's publishable key. */
  store: MedusaCaller;
  /** Posts a raw body to Medusa's webhook route for our provider. */
  postWebhook(body: string, headers: Record<string, string>): Promise<MedusaAnswer>;
  regionId: string;
  variantId: string;
  shippingOptionId: string;
  salesChannelId: string;
  close(): Promise<void>;
}

function caller(baseUrl: string, headers: () => Record<string, string>): MedusaCaller {
  return async (method, route, body) => {
    const response = await fetch(`${baseUrl}${route}`, {
      method,
      headers: { ...headers(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed as any };
  };
}

/** Answers the body, or throws with what Medusa said: seeding must not go on after a refusal. */
async function ok<T = any>(answer: Promise<MedusaAnswer<T>>, what: string): Promise<T> {
  const { status, body } = await answer;
  if (status < 200 || status > 299) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
  return body;
}

/**
 * A Medusa shop that sells one product in euros and takes payment through our provider, with our local stack
 * behind it. Everything is made through Medusa's own APIs, as a shop's admin would.
 */
export async function startShop(): Promise<Shop> {
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch(() => undefined);
  };
  try {
    const database = await startDatabase();
    closers.push(() => database.close());
    let medusaUrl = '';
    // Events come only once carts exist, so Medusa has started and has its port by then.
    const gate = await startWebhookGate(() => `${medusaUrl}${WEBHOOK_PATH}`);
    closers.push(() => gate.listening.close());
    const plugin = await startHarness({
      webhooks: { url: `${gate.listening.url}/` },
      // An event held back at the gate comes again within seconds once the gate opens.
      env: { WEBHOOK_RETRY_SCALE: '0.01' },
    });
    closers.push(() => plugin.close());
    const pluginGate = await startPluginGate(plugin.stack.url);
    closers.push(() => pluginGate.listening.close());
    const medusa = await startMedusa({
      databaseUrl: database.url,
      providerOptions: {
        api_url: pluginGate.listening.url,
        storefront_token: plugin.stack.storefrontToken,
        admin_token: plugin.stack.adminToken,
        webhook_secret: plugin.stack.webhookSecret,
        url_success: 'https://shop.example/ok',
        url_failed: 'https://shop.example/failed',
      },
    });
    closers.push(() => medusa.stop());
    medusaUrl = medusa.url;

    const { token } = await ok(
      caller(medusa.url, () => ({}))('POST', '/auth/user/emailpass', ADMIN),
      'Signing in the admin',
    );
    const admin = caller(medusa.url, () => ({ authorization: `Bearer ${token}` }));
    const seeding = Date.now();
    const seeded = await seed(admin);
    // One line per file, so that a slow machine shows where its time went.
    process.stderr.write(
      `medusa-e2e: database ${database.source} in ${database.readyMs} ms, Medusa healthy in ${medusa.bootMs} ms, shop seeded in ${Date.now() - seeding} ms\n`,
    );
    const store = caller(medusa.url, () => ({ 'x-publishable-api-key': seeded.publishableKey }));
    return {
      plugin,
      gate,
      pluginGate,
      medusa,
      database,
      admin,
      store,
      postWebhook: async (body, headers) => {
        const response = await fetch(`${medusa.url}${WEBHOOK_PATH}`, { method: 'POST', headers, body });
        const text = await response.text();
        return { status: response.status, body: text };
      },
      ...seeded,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** A sales channel, its publishable key, a region paid through our provider, stock, shipping and one product. */
async function seed(admin: MedusaCaller) {
  const { stores } = await ok(admin('GET', '/admin/stores'), 'Reading the store');
  await ok(
    admin('POST', `/admin/stores/${stores[0].id}`, {
      supported_currencies: [{ currency_code: CURRENCY, is_default: true }],
    }),
    'Setting the currency',
  );
  const { sales_channel: channel } = await ok(
    admin('POST', '/admin/sales-channels', { name: 'Web shop' }),
    'Making the sales channel',
  );
  const { api_key: key } = await ok(
    admin('POST', '/admin/api-keys', { title: 'Storefront', type: 'publishable' }),
    'Making the publishable key',
  );
  await ok(
    admin('POST', `/admin/api-keys/${key.id}/sales-channels`, { add: [channel.id] }),
    'Linking the key to the channel',
  );
  const { region } = await ok(
    admin('POST', '/admin/regions', {
      name: 'Germany',
      currency_code: CURRENCY,
      countries: [COUNTRY],
      payment_providers: [PROVIDER_ID],
    }),
    'Making the region',
  );
  const { stock_location: location } = await ok(
    admin('POST', '/admin/stock-locations', {
      name: 'Warehouse',
      address: { address_1: 'Lagerstr. 1', city: 'Berlin', country_code: COUNTRY },
    }),
    'Making the stock location',
  );
  await ok(
    admin('POST', `/admin/stock-locations/${location.id}/sales-channels`, { add: [channel.id] }),
    'Linking the location to the channel',
  );
  await ok(
    admin('POST', `/admin/stock-locations/${location.id}/fulfillment-providers`, { add: ['manual_manual'] }),
    'Adding the manual fulfillment provider',
  );
  const { stock_location: withSet } = await ok(
    admin('POST', `/admin/stock-locations/${location.id}/fulfillment-sets?fields=*fulfillment_sets`, {
      name: 'Shipping',
      type: 'shipping',
    }),
    'Making the fulfillment set',
  );
  const { fulfillment_set: set } = await ok(
    admin('POST', `/admin/fulfillment-sets/${withSet.fulfillment_sets[0].id}/service-zones`, {
      name: 'Germany',
      geo_zones: [{ type: 'country', country_code: COUNTRY }],
    }),
    'Making the service zone',
  );
  const { shipping_profile: profile } = await ok(
    admin('POST', '/admin/shipping-profiles', { name: 'Parcels', type: 'default' }),
    'Making the shipping profile',
  );
  const { shipping_option: option } = await ok(
    admin('POST', '/admin/shipping-options', {
      name: 'Standard',
      price_type: 'flat',
      service_zone_id: set.service_zones[0].id,
      shipping_profile_id: profile.id,
      provider_id: 'manual_manual',
      type: { label: 'Standard', description: 'Two days', code: 'standard' },
      prices: [{ currency_code: CURRENCY, amount: SHIPPING_PRICE }],
      rules: [
        { attribute: 'enabled_in_store', value: 'true', operator: 'eq' },
        { attribute: 'is_return', value: 'false', operator: 'eq' },
      ],
    }),
    'Making the shipping option',
  );
  const { product } = await ok(
    admin('POST', '/admin/products', {
      title: 'Hoodie',
      status: 'published',
      shipping_profile_id: profile.id,
      options: [{ title: 'Size', values: ['One size'] }],
      variants: [
        {
          title: 'One size',
          options: { Size: 'One size' },
          manage_inventory: false,
          prices: [{ currency_code: CURRENCY, amount: ITEM_PRICE }],
        },
      ],
      sales_channels: [{ id: channel.id }],
    }),
    'Making the product',
  );
  return {
    publishableKey: key.token as string,
    regionId: region.id as string,
    variantId: product.variants[0].id as string,
    shippingOptionId: option.id as string,
    salesChannelId: channel.id as string,
  };
}
