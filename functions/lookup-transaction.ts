import { transactionInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { route } from '../lib/routes';
import { processing } from '../runtime/processing';
import { pluginSecret } from '../runtime/secret';

/** GET /transactions?id= or ?foreign_id=: the service's transaction record. */
export const handler = apiRoute(
  { route: route('lookup-transaction'), tokens: pluginSecret, input: transactionInput },
  async (query) => ({
    status: 200,
    body: await processing.getTransaction(query),
  }),
);
