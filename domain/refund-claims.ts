// A refund its customer claims through a link: the shop knows no address, so the customer gives one on the claim
// page. The amount is reserved on the order when the link is made; the withdrawal is sent once the address comes.
import { customerSecretMatches } from './customer-secret';
import { NotFoundError } from './errors';
import type { ClaimLink, RefundRecord } from './model';
import type { VersionedStore } from './ports';

/** The link still takes an address: open, neither cancelled nor expired by `now`. */
export function claimOpen(
  record: RefundRecord,
  now: number,
): record is RefundRecord & { claimLink: ClaimLink } {
  const link = record.claimLink;
  return (
    record.phase === 'claimable' && link !== undefined && link.closed === undefined && now < link.expiresAt
  );
}

/** What a claim link's token is derived from: its refund, and when the link was made. */
export function linkHolder(foreignId: string, link: ClaimLink): { foreignId: string; createdAt: number } {
  return { foreignId, createdAt: link.madeAt };
}

/** When the reconcile job next looks at a claimable refund: when its link expires, or at once once cancelled. */
export function claimDueAt(link: ClaimLink): number {
  return link.cancelledAt ?? link.expiresAt;
}

/** How a claim that took no address ends: cancelled by the store, else expired. */
export function closedAs(link: ClaimLink): NonNullable<ClaimLink['closed']> {
  return link.cancelledAt === undefined ? 'expired' : 'cancelled';
}

export const CLAIM_CLOSED_MESSAGES: Record<NonNullable<ClaimLink['closed']>, string> = {
  expired: 'The claim link expired before the customer gave an address',
  cancelled: 'The store cancelled the claim link',
};

/**
 * The refund a claim token opens, from the table alone. A wrong or missing token is answered as a missing refund,
 * and is checked for a missing one too, so that neither the answer nor its time tells which refunds exist.
 */
export async function readClaim(
  refunds: VersionedStore<RefundRecord>,
  foreignId: string,
  token: string | undefined,
): Promise<RefundRecord & { claimLink: ClaimLink }> {
  const record = await refunds.get(foreignId);
  const matches = customerSecretMatches(token, record?.claimLink?.tokenHash);
  if (!record?.claimLink || !matches) throw new NotFoundError('Claim');
  return record as RefundRecord & { claimLink: ClaimLink };
}
