// The dispatcher's work from a stream event: the records named, each once; nothing from any other trigger.
import { streamWork } from '../../store/delivery-store';

const record = (pk: string) => ({
  eventSource: 'aws:dynamodb',
  dynamodb: { Keys: { pk: { S: pk }, sk: { S: 'x' } } },
});

test('a stream event names the records whose writes left events waiting, each once', () => {
  const event = { Records: [record('INVOICE#order-1'), record('REFUND#ref#1'), record('INVOICE#order-1')] };
  expect(streamWork(event)).toEqual([
    { record: 'invoice', foreignId: 'order-1' },
    { record: 'refund', foreignId: 'ref#1' },
  ]);
});

test('a scheduled run, a wake and anything else name none: the run reads the due index', () => {
  expect(streamWork({ job: 'webhook-dispatcher', scheduledTime: '2026-11-28T00:00:00Z' })).toEqual([]);
  expect(streamWork({ Records: [{ eventSource: 'aws:sqs', body: '{}' }] })).toEqual([]);
  expect(streamWork({ Records: [record('WEBHOOK#evt_x'), record('CALLBACK#abc')] })).toEqual([]);
  expect(streamWork(undefined)).toEqual([]);
});
