import { storeOfCustomerSecret } from '../domain/customer-secret';
import { CLAIM_TOKEN_MARK } from '../domain/ids';
import { claimAddressInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { claimView } from '../http/views';
import { claimRefundRoute } from '../lib/routes';
import { refundsFor } from '../runtime/refunds';
import { storeForClaims } from '../runtime/claim-stores';

/** POST /public/refund-claims/{foreign_id}: the customer's address; the refund is sent once, however often it comes. */
export const handler = apiRoute(
  { route: claimRefundRoute, input: claimAddressInput },
  async ({ foreignId, token, answer }) => {
    const storeId = storeOfCustomerSecret(token, CLAIM_TOKEN_MARK);
    const record = await refundsFor(storeId).claim(foreignId, token, answer);
    return {
      status: 200,
      body: claimView(record, await storeForClaims(storeId)),
      headers: { 'cache-control': 'no-store' },
    };
  },
);
