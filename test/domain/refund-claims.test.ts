// Claim links where a submit stops half-way or races the store's cancel or the link's expiry: the withdrawal is
// sent at most once, and a claim is never lost while its amount is still reserved.
import { customerSecretHash } from '../../domain/customer-secret';
import { ConflictError, InProgressError, ServiceError } from '../../domain/errors';
import type { RefundRecord } from '../../domain/model';
import { RefundService } from '../../domain/refunds';
import { oneAccount } from '../../domain/upstream';
import { refundView } from '../../http/views';
import { ProcessingAdapter } from '../../processing/adapter';
import { checkoutRequest, startDomainRig, type DomainRig } from '../support/domain-rig';

let rig: DomainRig;
let refunds: RefundService;
const ADDRESS = 'bc1qclaimaddress00000000000000000000000';
const tokenOf = (foreignId: string) => `rc_token-of-${foreignId}`;

beforeEach(async () => {
  rig = await startDomainRig();
  const timing = { now: () => rig.clock.ms, leaseMs: 45_000, waitMs: 5_000, pollMs: 100 };
  refunds = new RefundService(
    rig.refundStore,
    oneAccount(new ProcessingAdapter(rig.client)),
    timing,
    rig.invoices,
    {
      claimLinks: {
        tokens: { secretFor: async ({ foreignId }) => tokenOf(foreignId) },
        days: async () => 30,
      },
    },
  );
});
afterEach(() => rig.close());

async function openClaim(order: string, refund: string): Promise<RefundRecord> {
  const { record } = await rig.invoices.checkout(checkoutRequest(order));
  await rig.control('POST', `/invoices/${order}/pay`, { kind: 'full' });
  await rig.invoices.refresh(record, 'lookup');
  const { record: claim } = await refunds.create({ foreignId: refund, invoiceForeignId: order });
  expect(claim).toMatchObject({
    phase: 'claimable',
    claimLink: { tokenHash: customerSecretHash(tokenOf(refund)) },
  });
  return claim;
}

/** Withdrawals the sandbox made under `foreignId`: its create requests answered 2xx. */
const withdrawals = async (foreignId: string) =>
  (
    (await rig.control('GET', '/requests?path=/v2/crypto/withdrawal_instant_exchange')).requests as Array<{
      status: number;
      body: string;
    }>
  ).filter((request) => request.status < 300 && JSON.parse(request.body).foreign_id === foreignId).length;

const refundable = async (order: string) => (await rig.invoiceStore.get(order))!.refundable;

test('a submit that stopped after taking the claim: waits out its lease, then the claim goes on, sent once', async () => {
  const claim = await openClaim('order-stop', 'claim-stop');
  // The submit took the claim and stopped before it wrote the address.
  await rig.refundStore.update(
    { ...claim, version: claim.version + 1, phase: 'sending', claimedAt: rig.clock.ms },
    claim.version,
  );
  await expect(
    refunds.claim('claim-stop', tokenOf('claim-stop'), { address: ADDRESS }),
  ).rejects.toBeInstanceOf(InProgressError);
  // The reconcile job, once the lease is out, opens the claim again rather than giving the refund up.
  rig.clock.ms += 46_000;
  await refunds.refresh((await rig.refundStore.get('claim-stop'))!, 'reconcile');
  expect(await rig.refundStore.get('claim-stop')).toMatchObject({ phase: 'claimable', error: null });
  expect(await refundable('order-stop')).toBe('0.00000000');

  const sent = await refunds.claim('claim-stop', tokenOf('claim-stop'), { address: ADDRESS });
  expect(refundView(sent)).toMatchObject({ status: 'processing', address: ADDRESS });
  expect(await withdrawals('claim-stop')).toBe(1);
  const again = await refunds.claim('claim-stop', tokenOf('claim-stop'), { address: ADDRESS });
  expect(again.version).toBe(sent.version);
  expect(await withdrawals('claim-stop')).toBe(1);
});

test('a cancel marks the claim closed before it releases the amount: a submit after the mark sends nothing', async () => {
  const claim = await openClaim('order-cancel', 'claim-cancel');
  const net = (await rig.invoiceStore.get('order-cancel'))!.settlement!.net;
  // The cancel's first write lands, and it stops before the release.
  const marked = {
    ...claim,
    claimLink: { ...claim.claimLink!, cancelledAt: rig.clock.ms, closed: 'cancelled' as const },
  };
  await rig.refundStore.update({ ...marked, version: claim.version + 1 }, claim.version);
  await expect(refunds.claim('claim-cancel', tokenOf('claim-cancel'), { address: ADDRESS })).rejects.toThrow(
    ConflictError,
  );
  // The store's retry, or the reconcile job, finishes it.
  const cancelled = await refunds.cancelClaim('claim-cancel');
  expect(refundView(cancelled)).toMatchObject({ status: 'claim_cancelled', final: true });
  expect(await refundable('order-cancel')).toBe(Number(net).toFixed(8));
  expect(await withdrawals('claim-cancel')).toBe(0);
});

test('an expired link takes no address; the reconcile job closes it and releases the amount', async () => {
  const claim = await openClaim('order-expire', 'claim-expire');
  rig.clock.ms = claim.claimLink!.expiresAt;
  await expect(refunds.claim('claim-expire', tokenOf('claim-expire'), { address: ADDRESS })).rejects.toThrow(
    'expired or was cancelled',
  );
  await refunds.refresh((await rig.refundStore.get('claim-expire'))!, 'reconcile');
  const expired = (await rig.refundStore.get('claim-expire'))!;
  expect(refundView(expired)).toMatchObject({ status: 'claim_expired', final: true });
  expect((await rig.invoiceStore.get('order-expire'))!.refunds).toEqual([
    expect.objectContaining({ foreignId: 'claim-expire', state: 'claim_expired' }),
  ]);
  expect(await withdrawals('claim-expire')).toBe(0);
});

test('a wrong token opens nothing, whatever the refund', async () => {
  await openClaim('order-token', 'claim-token');
  for (const token of [undefined, '', tokenOf('claim-other'), `${tokenOf('claim-token')}x`]) {
    await expect(refunds.claim('claim-token', token, { address: ADDRESS })).rejects.toThrow(
      'Claim was not found',
    );
  }
  expect(await withdrawals('claim-token')).toBe(0);
});

test("a refusal naming the customer's address and the store's balance together ends the refund, not reopened", async () => {
  const claim = await openClaim('order-mixed', 'claim-mixed');
  class RefusingBoth extends ProcessingAdapter {
    override async createWithdrawal(): Promise<never> {
      throw new ServiceError('refused', 'withdrawal refused', {
        code: 'refused',
        fields: { address: 'The address is invalid.', sender_amount: 'Insufficient funds.' },
      });
    }
  }
  const refusing = new RefundService(
    rig.refundStore,
    oneAccount(new RefusingBoth(rig.client)),
    { now: () => rig.clock.ms, leaseMs: 45_000, waitMs: 5_000, pollMs: 100 },
    rig.invoices,
    {
      claimLinks: {
        tokens: { secretFor: async ({ foreignId }) => tokenOf(foreignId) },
        days: async () => 30,
      },
    },
  );
  const ended = await refusing.claim(claim.foreignId, tokenOf('claim-mixed'), { address: ADDRESS });
  expect(refundView(ended)).toMatchObject({ status: 'rejected', final: true });
  const again = await refusing.claim(claim.foreignId, tokenOf('claim-mixed'), { address: ADDRESS });
  expect(again.version).toBe(ended.version);
  expect(await refundable('order-mixed')).not.toBe('0.00000000');
});
