// The eligibility cache (issue 43): pairs kept per account key for the period, failures never kept, refusals kept.
import { EligibilityService } from '../../domain/eligibility';
import type { MarketAccount } from '../../domain/market';
import { ServiceError } from '../../domain/errors';
import type { PairQuery, ServiceData } from '../../domain/model';
import type { ProcessingApi } from '../../domain/ports';

const PERIOD_MS = 60_000;

/** An account whose pairs from EUR have these minimums, counting its calls; `fail` makes the next call time out. */
function account(key: string, minWithExchange: string) {
  const calls: PairQuery[] = [];
  const state = { fail: false };
  const pairs = async (query: PairQuery): Promise<ServiceData[]> => {
    calls.push(query);
    if (state.fail) {
      state.fail = false;
      throw new ServiceError('timeout', 'pairs: no answer', { code: 'timeout' });
    }
    if (query.currency_from !== 'EUR') {
      throw new ServiceError('refused', 'pairs: refused', {
        code: 'refused',
        fields: { currency_from: 'The selected currency from is invalid.' },
      });
    }
    return [
      {
        currency_from: {
          currency: 'EUR',
          type: 'fiat',
          min_amount: '1',
          min_amount_deposit_with_exchange: minWithExchange,
        },
        currency_to: { currency: query.currency_to, type: 'crypto' },
        rate_from: '1',
        rate_to: '0.5',
      },
    ];
  };
  const api = { pairs } as unknown as ProcessingApi;
  return { account: { key, api } satisfies MarketAccount, calls, state };
}

function service() {
  const clock = { now: 0 };
  return { eligibility: new EligibilityService(['BTC', 'ETH'], PERIOD_MS, () => clock.now), clock };
}

test('each account its own pairs, each asked once per period', async () => {
  const { eligibility, clock } = service();
  const one = account('one', '5');
  const two = account('two', '50');
  expect((await eligibility.options(one.account, '10', 'EUR')).map((o) => o.payCurrency)).toEqual([
    'BTC',
    'ETH',
  ]);
  expect(await eligibility.options(two.account, '10', 'EUR')).toEqual([]);
  await eligibility.options(one.account, '20', 'EUR');
  expect([one.calls.length, two.calls.length]).toEqual([2, 2]);
  clock.now += PERIOD_MS;
  await eligibility.options(one.account, '20', 'EUR');
  expect(one.calls.length).toBe(4);
});

test('an estimate rounds up to 8 places; the minimum is the exchange one', async () => {
  const { eligibility } = service();
  const { account: one } = account('one', '5');
  expect((await eligibility.options(one, '5.00000001', 'EUR'))[0]).toEqual({
    payCurrency: 'BTC',
    minAmount: '5.00000000',
    payAmount: '2.50000001',
  });
});

test('a failed call is not kept; a refused currency is a 400 naming it', async () => {
  const { eligibility } = service();
  const one = account('one', '5');
  one.state.fail = true;
  await expect(eligibility.options(one.account, '10', 'EUR')).rejects.toThrow('no answer');
  expect(await eligibility.options(one.account, '10', 'EUR')).toHaveLength(2);
  await expect(eligibility.options(one.account, '10', 'XYZ')).rejects.toMatchObject({
    code: 'invalid_request',
    fields: { currency: expect.stringContaining('XYZ') },
  });
});
