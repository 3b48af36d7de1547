import { countMetric } from '../../observability/metrics';

afterEach(() => jest.restoreAllMocks());

test('a count is one raw EMF line on stdout, untouched by console (and so by the Lambda log format)', () => {
  const written: string[] = [];
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  const consoleLog = jest.spyOn(console, 'log');

  countMetric('UpstreamServerErrors');

  expect(consoleLog).not.toHaveBeenCalled();
  expect(written).toHaveLength(1);
  const [line] = written;
  // One event per line: a JSON object and its newline, nothing before it.
  expect(line).toMatch(/^\{[^\n]*\}\n$/);
  const emf = JSON.parse(line);
  expect(emf).toEqual({
    _aws: {
      Timestamp: expect.any(Number),
      CloudWatchMetrics: [
        {
          Namespace: 'MerchantPayments',
          Dimensions: [['Service', 'Stage']],
          Metrics: [{ Name: 'UpstreamServerErrors', Unit: 'Count' }],
        },
      ],
    },
    Service: 'payments-plugin',
    // Outside a deployed stage (npm start, the tests) the stage is `local`.
    Stage: 'local',
    UpstreamServerErrors: 1,
  });
});

test("a deployed function's counts carry its stage, from the variable the stack sets", () => {
  const written: string[] = [];
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  process.env.STAGE = 'production';
  try {
    countMetric('CallbackSignatureFailures');
  } finally {
    delete process.env.STAGE;
  }
  expect(JSON.parse(written[0])).toMatchObject({ Service: 'payments-plugin', Stage: 'production' });
});

test("a count with a store is recorded per store and in the stage's total, which the alarm watches, from one line", () => {
  const written: string[] = [];
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  countMetric('WebhookDeliveryFailures', 1, { Store: 'shop-2' });
  expect(written).toHaveLength(1);
  const emf = JSON.parse(written[0]);
  expect(emf._aws.CloudWatchMetrics[0].Dimensions).toEqual([
    ['Service', 'Stage'],
    ['Service', 'Stage', 'Store'],
  ]);
  expect(emf).toMatchObject({
    Service: 'payments-plugin',
    Stage: 'local',
    Store: 'shop-2',
    WebhookDeliveryFailures: 1,
  });
});
