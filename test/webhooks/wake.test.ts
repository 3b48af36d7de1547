import { SQSClient } from '@aws-sdk/client-sqs';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { LOCAL_CREDENTIALS } from '../../local/dynamodb';
import { listen, type Listening } from '../../local/listen';
import { SqsDispatcherWake } from '../../webhooks/wake';

// SQS faked at the wire: the real client's SendMessageBatch (JSON protocol), answered as SQS answers it, with the
// MD5 of each body, which the client checks.
interface Entry {
  Id: string;
  MessageBody: string;
  DelaySeconds: number;
}
let sqs: Listening;
let batches: Entry[][] = [];
let status = 200;
let lost: unknown[] = [];

beforeAll(async () => {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      expect(request.headers['x-amz-target']).toBe('AmazonSQS.SendMessageBatch');
      const { Entries } = JSON.parse(Buffer.concat(chunks).toString()) as { Entries: Entry[] };
      batches.push(Entries);
      const md5 = (text: string) => createHash('md5').update(text).digest('hex');
      const body =
        status === 200
          ? {
              Successful: Entries.map((e) => ({
                Id: e.Id,
                MessageId: e.Id,
                MD5OfMessageBody: md5(e.MessageBody),
              })),
            }
          : { __type: 'com.amazonaws.sqs#InternalError', message: 'down' };
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(body));
    });
  });
  sqs = await listen(server, 0);
});
afterAll(() => sqs.close());
beforeEach(() => {
  batches = [];
  status = 200;
  lost = [];
});

const NOW = Date.UTC(2030, 0, 1);
function wake() {
  const client = new SQSClient({
    region: 'us-east-1',
    endpoint: sqs.url,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 1,
  });
  return new SqsDispatcherWake(
    client,
    `${sqs.url}/000000000000/wake`,
    () => NOW,
    (error) => lost.push(error),
  );
}

test('one message per time, delayed to it in whole seconds up to 15 minutes, ten to a batch', async () => {
  const times = [
    NOW - 500,
    NOW + 4_200,
    NOW + 900_000,
    NOW + 900_001,
    ...Array.from({ length: 9 }, (_, i) => NOW + (i + 10) * 1000),
  ];
  await wake().at(times);
  expect(batches.map((batch) => batch.length)).toEqual([10, 2]);
  const sent = batches.flat();
  // Past due: at once; a later retry than SQS can delay is the schedule's.
  expect(sent.map((entry) => entry.DelaySeconds)).toEqual([0, 5, 900, 10, 11, 12, 13, 14, 15, 16, 17, 18]);
  expect(JSON.parse(sent[1].MessageBody)).toEqual({ wakeAt: new Date(NOW + 4_200).toISOString() });
  expect(lost).toEqual([]);
});

test('nothing to send when every time is beyond SQS delays; a queue that fails does not fail the run', async () => {
  await wake().at([NOW + 3_600_000]);
  expect(batches).toEqual([]);
  status = 500;
  await expect(wake().at([NOW + 5_000])).resolves.toBeUndefined();
  expect(batches).toHaveLength(1);
  expect(lost).toEqual([expect.objectContaining({ name: 'InternalError' })]);
});
