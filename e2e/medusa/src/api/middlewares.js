// The shop's API middlewares: our order-cancel guard runs before Medusa's own Admin cancel. Plain JavaScript, since
// `medusa start` loads src/api/middlewares.js unbuilt; the harness (support/medusa.ts) sets the provider's options.
const path = require('node:path');
const { defineMiddlewares } = require('@medusajs/framework/http');
const { orderCancelGuard } = require(path.resolve(__dirname, '../../../../packages/medusa-payment'));

const options = process.env.MEDUSA_E2E_PROVIDER_OPTIONS
  ? JSON.parse(process.env.MEDUSA_E2E_PROVIDER_OPTIONS)
  : undefined;

// Medusa reads the file's `default` export, as a compiled middlewares.ts has it.
exports.default = defineMiddlewares({
  routes: options
    ? [
        {
          matcher: '/admin/orders/:id/cancel',
          methods: ['POST'],
          middlewares: [orderCancelGuard({ ...options, id: options.id ?? 'default' })],
        },
      ]
    : [],
});
