// A refund the customer claims through a link, end to end in the browser: the console refunds a paid order
// without an address and shows the link, the claim page (web/apps/claim) takes the customer's address and follows
// the refund; however often the address comes (a double click, a second tab, a retry after a lost answer), one
// withdrawal is sent.
import type { Page, Route } from 'playwright-core';
import { axeViolations, openPage, screenshot } from '../support/browser';
import { ConsoleSuite, expectAccessibleState } from '../support/console-page';
import { checkoutBody } from '../support/local-stack';
import { waitFor } from '../support/wait';

const ADDRESS = 'bc1qclaimpageaddress000000000000000000000';
const PHONE_WIDTH = 390;

describe('refund claim links', () => {
  const suite = new ConsoleSuite();

  const paidOrder = async (foreignId: string) => {
    await suite.checkout(foreignId);
    await suite.harness.control('POST', `/invoices/${foreignId}/pay`, { kind: 'full' });
    expect(await suite.invoiceStatus(foreignId, 'paid')).toBe('paid');
  };

  /** The withdrawals sent for the refund, as the sandbox's request log has them: refused ones too. */
  const withdrawalsOf = async (refundId: string) =>
    (await suite.harness.upstreamRequests('/v2/crypto/withdrawal_instant_exchange')).filter(
      (request) =>
        request.method === 'POST' &&
        /^([a-z0-9-]+!)?(.*)$/.exec(JSON.parse(request.body).foreign_id)?.[2] === refundId,
    );

  const refundView = async (refundId: string, status: string) =>
    (
      await waitFor(
        () => suite.harness.api('GET', `/refunds/${refundId}`, { token: 'admin' }),
        ({ body }) => body.status === status,
        60_000,
      )
    ).body;

  /** The console makes a claim link for 10 EUR of the order; answers the console's page, the refund and its link. */
  const claimLinkFromConsole = async (order: string) => {
    const { page, errors } = await suite.open();
    await page.getByRole('link', { name: order, exact: true }).click();
    await page.getByText('Refundable: 25.245 EUR').waitFor();
    await page.getByRole('button', { name: 'Refund…' }).click();
    const dialog = page.getByRole('dialog', { name: `Refund invoice ${order}` });
    await dialog.getByLabel('Amount (EUR)').fill('10');
    const refundId = (await dialog.locator('dd').first().textContent())!;
    await expectAccessibleState(page, `claim-dialog-${order}`);
    await dialog.getByRole('button', { name: 'Send a claim link instead' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Claim link for a refund of 10.00 EUR made.' })
      .waitFor();
    const link = page.getByRole('textbox', { name: `Claim link of refund ${refundId}`, exact: true });
    const url = await link.inputValue();
    expect(url).toMatch(new RegExp(`/claim/#${refundId}/rc_`));
    return { page, errors, refundId, url };
  };

  const openClaim = async (url: string, before?: (page: Page) => Promise<unknown>) => {
    const opened = await openPage(suite.browser);
    await before?.(opened.page);
    await opened.page.goto(url);
    await opened.page.getByRole('heading', { level: 1, name: /refund/i }).waitFor();
    return opened;
  };

  /**
   * The page's polls answered with its first view until `release`, so that the form stays on a busy machine while
   * another tab claims: a tab that has not yet seen the claim is the case to test.
   */
  const holdPolls = () => {
    let first: string | undefined;
    const handler = async (route: Route) => {
      if (route.request().method() !== 'GET') return route.fallback();
      if (first === undefined) {
        const response = await route.fetch();
        first = await response.text();
        return route.fulfill({ response, body: first });
      }
      return route.fulfill({ status: 200, contentType: 'application/json', body: first });
    };
    const pattern = '**/public/refund-claims/**';
    return {
      hold: (page: Page) => page.route(pattern, handler),
      release: (page: Page) => page.unroute(pattern, handler),
    };
  };

  const noSidewaysScroll = async (page: Page, name: string) => {
    const size = page.viewportSize()!;
    await page.setViewportSize({ width: PHONE_WIDTH, height: 844 });
    await screenshot(page, `narrow-${name}`);
    const overflow = await page.evaluate(
      (width) => (globalThis as any).document.documentElement.scrollWidth - width,
      PHONE_WIDTH,
    );
    expect({ name, overflow }).toEqual({ name, overflow: 0 });
    await page.setViewportSize(size);
  };

  const expectAccessibleClaim = async (page: Page, name: string) => {
    await screenshot(page, `claim-${name}`);
    expect(await axeViolations(page)).toEqual([]);
  };

  test('the customer claims the link: one withdrawal across a lost answer, two tabs and a double click', async () => {
    await paidOrder('claim-page');
    const consolePage = await claimLinkFromConsole('claim-page');
    const { refundId, url } = consolePage;
    const row = consolePage.page
      .getByRole('table', { name: 'Refunds of this invoice' })
      .locator('tbody tr')
      .first();
    await row.getByText('Awaiting the customer’s address').waitFor();
    await row.getByText('Send this link to your customer; it works for 30 days.').waitFor();
    // The new link's Copy button has the focus: copying it is what the operator does next.
    await consolePage.page.waitForFunction(
      () => (globalThis as any).document.activeElement?.textContent === 'Copy',
    );
    await consolePage.page.getByText('Refundable: 15.245 EUR').waitFor();
    await consolePage.page
      .context()
      .grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.harness.stack.url });
    await row.getByRole('button', { name: `Copy claim link of refund ${refundId}` }).click();
    await row.getByRole('status').filter({ hasText: 'Claim link copied.' }).waitFor();
    await expect(
      consolePage.page.evaluate(() => (globalThis as any).navigator.clipboard.readText()),
    ).resolves.toBe(url);
    await expectAccessibleState(consolePage.page, 'claim-link');
    await noSidewaysScroll(consolePage.page, 'console-claim-link');
    expect(await withdrawalsOf(refundId)).toHaveLength(0);

    // The page takes the token out of the address bar, and shows the store, the amount and the currency.
    const [firstPolls, secondPolls] = [holdPolls(), holdPolls()];
    const first = await openClaim(url, firstPolls.hold);
    expect(first.page.url()).not.toContain('#');
    expect(first.page.url()).not.toContain('rc_');
    await first.page.getByRole('heading', { level: 1, name: 'Your refund' }).waitFor();
    const summary = first.page.getByRole('region', { name: 'Your refund' });
    await summary.getByText('10.00 EUR').waitFor();
    await summary
      .getByText("You receive it in BTC, converted at the payment service's rate when it is sent.")
      .waitFor();
    await expectAccessibleClaim(first.page, 'form');
    await noSidewaysScroll(first.page, 'claim-form');
    const second = await openClaim(url, secondPolls.hold);
    await second.page.getByLabel('Your BTC address').waitFor();

    // The first send reaches the API, and its answer never reaches the browser. Counted by hand: a poll that
    // passes through first would use up a `times: 1`.
    let lost = 0;
    await first.page.route('**/public/refund-claims/**', async (route) => {
      if (route.request().method() !== 'POST' || lost > 0) return route.fallback();
      lost++;
      await route.fetch();
      await route.abort('connectionreset');
    });
    await first.page.getByLabel('Your BTC address').fill(ADDRESS);
    await first.page.getByRole('button', { name: 'Send my refund' }).click();
    await first.page.getByRole('alert').filter({ hasText: 'the connection failed' }).waitFor();
    expect(await withdrawalsOf(refundId)).toHaveLength(1);

    // The second tab sends the same address; the first sends it again with a double click. Each tab's polls are let
    // through once its send is answered: a held poll would show the stale form again over the answer.
    const sendAnswered = (page: Page) =>
      page.waitForResponse(
        (response) =>
          response.request().method() === 'POST' && response.url().includes('/public/refund-claims/'),
      );
    await second.page.getByLabel('Your BTC address').fill(ADDRESS);
    const secondSent = sendAnswered(second.page);
    await second.page.getByRole('button', { name: 'Send my refund' }).click();
    expect((await secondSent).status()).toBe(200);
    await secondPolls.release(second.page);
    await second.page.getByRole('list').getByText('Address received').waitFor();
    const firstSent = sendAnswered(first.page);
    await first.page.getByRole('button', { name: 'Send my refund' }).dblclick();
    expect((await firstSent).status()).toBe(200);
    await firstPolls.release(first.page);
    await first.page.getByRole('list').getByText('Address received').waitFor();
    const onItsWay = first.page.getByRole('status').filter({ hasText: 'Your refund is on its way.' });
    await onItsWay.waitFor();
    await expectAccessibleClaim(first.page, 'on-its-way');
    await noSidewaysScroll(first.page, 'claim-on-its-way');
    expect(await withdrawalsOf(refundId)).toHaveLength(1);
    const sent = await refundView(refundId, 'processing');
    expect(sent).toMatchObject({ address: ADDRESS, claim_url: null });

    // The order's view follows: the refund is no longer waiting for an address.
    const later = await suite.open();
    await later.page.getByRole('link', { name: 'claim-page', exact: true }).click();
    const sendingRow = later.page
      .getByRole('table', { name: 'Refunds of this invoice' })
      .locator('tbody tr')
      .first();
    await sendingRow.getByText('Sending').waitFor();
    await expect(sendingRow.getByRole('button', { name: 'Copy' }).count()).resolves.toBe(0);

    // The payment service confirms it; the page, polling, says so, and the refund view and the order agree.
    expect(
      (await suite.harness.control('POST', `/withdrawals/${refundId}/complete`, { status: 'confirmed' }))
        .status,
    ).toBe(200);
    await refundView(refundId, 'confirmed');
    for (const tab of [first, second])
      await tab.page.getByRole('status').filter({ hasText: 'Your refund has been sent.' }).waitFor();
    await expectAccessibleClaim(first.page, 'confirmed');
    const order = await suite.harness.api('GET', '/invoices/claim-page', { token: 'admin' });
    expect(order.body.refunds).toMatchObject([{ foreign_id: refundId, status: 'confirmed' }]);
    expect(await withdrawalsOf(refundId)).toHaveLength(1);
    const quiet = (errors: string[]) =>
      errors.filter((error) => !error.includes('ERR_CONNECTION_RESET') && !error.includes('ERR_FAILED'));
    expect(quiet(first.errors)).toEqual([]);
    expect(second.errors).toEqual([]);
    expect(consolePage.errors).toEqual([]);
    expect(later.errors).toEqual([]);
  });

  test('a refused address shows its message and keeps the form; a cancelled link says so', async () => {
    await paidOrder('claim-page-refused');
    const consolePage = await claimLinkFromConsole('claim-page-refused');
    const { refundId, url } = consolePage;
    const claim = await openClaim(url);
    await claim.page.getByLabel('Your BTC address').fill('invalid-address');
    await claim.page.getByRole('button', { name: 'Send my refund' }).click();
    await claim.page
      .getByRole('alert')
      .filter({ hasText: 'The payment service refused this address' })
      .waitFor();
    await expect(claim.page.getByLabel('Your BTC address').inputValue()).resolves.toBe('invalid-address');
    await expectAccessibleClaim(claim.page, 'refused');
    expect(await refundView(refundId, 'awaiting_claim')).toMatchObject({ final: false });

    // The store cancels the link, asked first; the page, polling, says the link no longer works.
    await consolePage.page.getByRole('button', { name: `Cancel link of refund ${refundId}` }).click();
    const dialog = consolePage.page.getByRole('dialog', {
      name: `Cancel the claim link of refund ${refundId}?`,
    });
    await expectAccessibleState(consolePage.page, 'cancel-claim-link');
    await dialog.getByRole('button', { name: 'Yes, cancel link' }).click();
    await consolePage.page
      .getByRole('status')
      .filter({ hasText: `The claim link of refund ${refundId} is cancelled.` })
      .waitFor();
    await consolePage.page.getByText('Refundable: 25.245 EUR').waitFor();
    await refundView(refundId, 'claim_cancelled');
    await claim.page
      .getByRole('status')
      .filter({ hasText: 'The store has cancelled this refund link.' })
      .waitFor();
    await expectAccessibleClaim(claim.page, 'cancelled');
    expect(await withdrawalsOf(refundId)).toHaveLength(1);
    expect(claim.errors).toEqual([]);
    expect(consolePage.errors).toEqual([]);
  });

  /** A store of its own with a paid order and a claim link for 5 of it; answers the link. */
  const storeClaimLink = async (store: string, travelRule: 'required' | 'optional') => {
    const made = await suite.harness.api('POST', '/stores', {
      token: 'platform',
      body: { id: store, name: 'Northwind Coffee', travel_rule: travelRule },
    });
    expect(made.status).toBe(201);
    const { storefront_token: storefront, admin_token: admin } = made.body;
    const order = `${store}-order`;
    expect(
      (await suite.harness.api('POST', '/checkout', { token: storefront, body: checkoutBody(order) })).status,
    ).toBe(201);
    // A store's own orders go to the payment service as `<store>!<foreign_id>`.
    const upstream = encodeURIComponent(`${store}!${order}`);
    await suite.harness.control('POST', `/invoices/${upstream}/pay`, { kind: 'full' });
    await waitFor(
      () => suite.harness.api('GET', `/invoices/${order}`, { token: admin }),
      ({ body }) => body.status === 'paid',
      60_000,
    );
    const refund = await suite.harness.api('POST', `/invoices/${order}/refunds`, {
      token: admin,
      body: { foreign_id: `${store}-r1`, debited_amount: '5' },
    });
    expect(refund.status).toBe(201);
    return refund.body.claim_url as string;
  };

  test("where the store's travel rule requires it, the page asks who receives the refund and sends it once", async () => {
    const claimUrl = await storeClaimLink('claim-page-tr', 'required');
    const claim = await openClaim(claimUrl);
    await claim.page.getByRole('heading', { level: 1, name: 'A refund from Northwind Coffee' }).waitFor();
    // The store requires the receiver: the page asks for it at once, as a person or a company, never `self`.
    const receiver = claim.page.getByRole('group', { name: 'Who receives the refund' });
    await receiver.waitFor();
    await expect(receiver.getByRole('radio').count()).resolves.toBe(2);
    await claim.page.getByLabel('Your BTC address').fill(ADDRESS);
    await claim.page.getByRole('button', { name: 'Send my refund' }).click();
    await claim.page
      .getByRole('alert')
      .filter({ hasText: /First name|Last name|Date of birth/ })
      .waitFor();
    await receiver.getByLabel('A person (me)').check();
    await receiver.getByLabel('First name').fill('Ada');
    await receiver.getByLabel('Last name').fill('Lovelace');
    await receiver.getByLabel('Date of birth').fill('1990-12-10');
    await expectAccessibleClaim(claim.page, 'receiver');
    await noSidewaysScroll(claim.page, 'claim-receiver');
    await claim.page.getByRole('button', { name: 'Send my refund' }).click();
    await claim.page.getByRole('status').filter({ hasText: 'Your refund is on its way.' }).waitFor();
    const sent = await withdrawalsOf('claim-page-tr-r1');
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0].body)).toMatchObject({
      address: ADDRESS,
      receiver_type: 'natural',
      receiver_data: { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1990-12-10' },
    });
    expect(claim.errors.filter((error) => !error.includes('status of 400'))).toEqual([]);
  });

  test('a store that comes to require the receiver while the page is open: the page asks for it after the refusal', async () => {
    const claimUrl = await storeClaimLink('claim-page-tr2', 'optional');
    const claim = await openClaim(claimUrl);
    await claim.page.getByLabel('Your BTC address').waitFor();
    const receiver = claim.page.getByRole('group', { name: 'Who receives the refund' });
    expect(await receiver.isVisible()).toBe(false);
    const changed = await suite.harness.api('PATCH', '/stores/claim-page-tr2', {
      token: 'platform',
      body: { travel_rule: 'required' },
    });
    expect(changed.status).toBe(200);
    await claim.page.getByLabel('Your BTC address').fill(ADDRESS);
    await claim.page.getByRole('button', { name: 'Send my refund' }).click();
    await receiver.waitFor();
    await claim.page.getByRole('alert').waitFor();
    expect(await withdrawalsOf('claim-page-tr2-r1')).toHaveLength(0);
    await receiver.getByLabel('A company').check();
    await receiver.getByLabel('Company name').fill('Analytical Engines Ltd');
    await receiver.getByLabel(/Country of registration/).fill('gb');
    await claim.page.getByRole('button', { name: 'Send my refund' }).click();
    await claim.page.getByRole('status').filter({ hasText: 'Your refund is on its way.' }).waitFor();
    const sent = await withdrawalsOf('claim-page-tr2-r1');
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0].body)).toMatchObject({ address: ADDRESS, receiver_type: 'legal' });
    expect(claim.errors.filter((error) => !error.includes('status of 400'))).toEqual([]);
  });

  test('a link with a wrong token shows that it opens no refund', async () => {
    const { page, errors } = await openClaim(`${suite.harness.stack.url}/claim/#nothing-here/rc_wrongtoken`);
    await page.getByRole('heading', { level: 1, name: 'Refund link not found' }).waitFor();
    await expectAccessibleClaim(page, 'not-found');
    expect(errors.filter((error) => !error.includes('404'))).toEqual([]);
  });
});
