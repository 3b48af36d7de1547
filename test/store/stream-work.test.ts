// The dispatcher's work from a stream event: the records named, each once, with their stores; nothing from any other
// trigger.
import { streamWork } from '../../store/delivery-store';

const record = (pk: string) => ({
  eventSource: 'aws:dynamodb',
  dynamodb: { Keys: { pk: { S: pk }, sk: { S: 'x' } } },
});

test('a stream event names the records whose writes left events waiting, each once', () => {
  const event = { Records: [record('INVOICE#order-1'), record('REFUND#ref#1'), record('INVOICE#order-1')] };
  expect(streamWork(event)).toEqual([
    { storeId: 'default', record: 'invoice', foreignId: 'order-1' },
    { storeId: 'default', record: 'refund', foreignId: 'ref#1' },
  ]);
});

test("another store's record is named with its store, the foreign_id its own: its key is scoped (STORES.md)", () => {
  const event = { Records: [record('S#shop-2#INVOICE#order-1'), record('S#shop-2#REFUND#S#x#1')] };
  expect(streamWork(event)).toEqual([
    { storeId: 'shop-2', record: 'invoice', foreignId: 'order-1' },
    { storeId: 'shop-2', record: 'refund', foreignId: 'S#x#1' },
  ]);
});

test('a scheduled run, a wake and anything else name none: the run reads the due index', () => {
  expect(streamWork({ job: 'webhook-dispatcher', scheduledTime: '2026-11-28T00:00:00Z' })).toEqual([]);
  expect(streamWork({ Records: [{ eventSource: 'aws:sqs', body: '{}' }] })).toEqual([]);
  expect(streamWork({ Records: [record('WEBHOOK#evt_x'), record('CALLBACK#abc')] })).toEqual([]);
  expect(streamWork({ Records: [record('S#shop-2#WEBHOOK#evt_x')] })).toEqual([]);
  expect(streamWork(undefined)).toEqual([]);
});
