// The shop the end-to-end suite drives; the harness (support/shop.ts) sets every variable below.
const path = require('node:path');
const { defineConfig } = require('@medusajs/framework/utils');

const env = process.env;
const providerOptions = env.MEDUSA_E2E_PROVIDER_OPTIONS
  ? JSON.parse(env.MEDUSA_E2E_PROVIDER_OPTIONS)
  : undefined;

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: env.DATABASE_URL,
    databaseDriverOptions: { ssl: false, sslmode: 'disable' },
    http: {
      storeCors: 'http://127.0.0.1',
      adminCors: 'http://127.0.0.1',
      authCors: 'http://127.0.0.1',
      jwtSecret: env.JWT_SECRET,
      cookieSecret: env.COOKIE_SECRET,
    },
  },
  admin: { disable: true },
  modules: [
    {
      resolve: '@medusajs/medusa/payment',
      options: {
        // No webhook_delay: Medusa 2.21.2's webhook route reads `webhook_delay || 5000`, so 0 means 5 s; tests poll.
        providers: providerOptions
          ? [
              {
                // Our provider package, built (npm run test:medusa builds it first).
                resolve: path.resolve(__dirname, '../../packages/medusa-payment'),
                id: providerOptions.id ?? 'default',
                options: providerOptions,
              },
            ]
          : [],
      },
    },
  ],
});
