import { storeOfCustomerSecret } from '../domain/customer-secret';
import { CLAIM_TOKEN_MARK } from '../domain/ids';
import { readClaim } from '../domain/refund-claims';
import { claimInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { claimView } from '../http/views';
import { getRefundClaimRoute } from '../lib/routes';
import { storeForClaims } from '../runtime/claim-stores';
import { refundStore } from '../runtime/stores';

/** GET /public/refund-claims/{foreign_id}: what the claim page shows, opened by the claim link's token alone. */
export const handler = apiRoute(
  { route: getRefundClaimRoute, input: claimInput },
  async ({ foreignId, token }) => {
    const storeId = storeOfCustomerSecret(token, CLAIM_TOKEN_MARK);
    const record = await readClaim(refundStore.forStore(storeId), foreignId, token);
    return {
      status: 200,
      body: claimView(record, await storeForClaims(storeId)),
      headers: { 'cache-control': 'no-store' },
    };
  },
);
