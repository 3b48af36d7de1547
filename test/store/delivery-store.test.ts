// Deliveries per store (issue 33), on dynalite: the default store's items keep the keys of before stores, byte for
// byte; another store's are scoped to it and name it; a store reads and re-sends its own alone, while the due list
// stays one for the dispatcher.
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import type { Delivery } from '../../domain/webhook-model';
import { DynamoDeliveryStore } from '../../store/delivery-store';
import type { Item } from '../../store/table';
import { startDynaliteTable, type DynaliteTable } from '../support/dynalite-table';

let table: DynaliteTable;
let deliveries: DynamoDeliveryStore;

beforeAll(async () => {
  table = await startDynaliteTable('deliveries');
  deliveries = new DynamoDeliveryStore(table, 30);
});
afterAll(() => table.close());

const AT = 1_795_000_000_000;

function delivery(storeId: string, id: string, state: Delivery['state'] = 'pending'): Delivery {
  return {
    id,
    storeId,
    type: 'invoice.paid',
    seq: 1,
    subject: 'invoice',
    foreignId: 'order-1',
    recordCreatedAt: AT,
    body: '{}',
    createdAt: AT,
    state,
    attempts: 1,
    retryFrom: AT,
    nextAttemptAt: AT,
    attemptUntil: null,
    lastAttempt: state === 'pending' ? null : { at: AT + 1, status: 500, error: null },
    deliveredAt: null,
    version: 1,
  };
}

async function items(): Promise<Item[]> {
  const { Items = [] } = await table.client.send(new ScanCommand({ TableName: table.name }));
  return Items;
}

test("the default store's delivery is the item of before stores; another store's is scoped to it and names it", async () => {
  expect(await deliveries.create(delivery('default', 'evt_default'))).toBe(true);
  expect(await deliveries.create(delivery('shop-2', 'evt_other', 'failed'))).toBe(true);
  const [own, other] = ['WEBHOOK#evt_default', 'S#shop-2#WEBHOOK#evt_other'].map((pk) =>
    items().then((all) => all.find((item) => item.pk.S === pk)),
  );

  const { storeId: _store, ...stored } = delivery('default', 'evt_default');
  expect(await own).toEqual({
    pk: { S: 'WEBHOOK#evt_default' },
    sk: { S: 'WEBHOOK' },
    data: { S: JSON.stringify({ ...stored, version: undefined }) },
    version: { N: '1' },
    gsi2pk: { S: expect.stringMatching(/^WEBHOOK#[0-3]$/) },
    gsi2sk: { S: expect.stringMatching(/#evt_default$/) },
    gsi3pk: { S: expect.stringMatching(/^DUE#\d+$/) },
    gsi3sk: { S: expect.any(String) },
  });
  expect(await other).toMatchObject({
    sk: { S: 'WEBHOOK' },
    store: { S: 'shop-2' },
    gsi2pk: { S: expect.stringMatching(/^S#shop-2#WEBHOOK#[0-3]$/) },
    gsi3pk: { S: expect.stringMatching(/^S#shop-2#FAILED#[0-3]$/) },
  });
  expect(JSON.parse((await other)!.data.S!)).not.toHaveProperty('storeId');
});

test('a store reads its own deliveries alone, and its own failed ones; the due list holds every store', async () => {
  await deliveries.create(delivery('shop-2', 'evt_due'));
  await deliveries.create(delivery('default', 'evt_failed', 'failed'));

  expect(await deliveries.get('default', 'evt_default')).toMatchObject({ storeId: 'default' });
  expect(await deliveries.get('shop-2', 'evt_default')).toBeUndefined();
  expect(await deliveries.get('default', 'evt_other')).toBeUndefined();
  expect(await deliveries.get('shop-2', 'evt_other')).toMatchObject({ storeId: 'shop-2', state: 'failed' });

  expect((await deliveries.listFailed('shop-2', 10)).map(({ id }) => id)).toEqual(['evt_other']);
  expect((await deliveries.listFailed('default', 10)).map(({ id }) => id)).toEqual(['evt_failed']);
  expect(await deliveries.listFailed('shop-3', 10)).toEqual([]);

  expect(await deliveries.listDue(AT, 10)).toEqual(
    expect.arrayContaining([
      { storeId: 'default', delivery: 'evt_default' },
      { storeId: 'shop-2', delivery: 'evt_due' },
    ]),
  );
  expect(await deliveries.listDue(AT, 10)).toHaveLength(2);
});
