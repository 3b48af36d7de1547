// Rule 5 with the default timeouts: under a service that never answers, every route answers in time.
import {
  callEveryRoute,
  createOpenRecords,
  expectAnsweredInTime,
  hangEveryOperation,
} from '../support/hung-service';
import { startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';

let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput(); // every failed call logs an error; keep the run quiet
  harness = await startHarness(); // no shortened timeouts: the function's own are what is tested
  await createOpenRecords(harness);
  await hangEveryOperation(harness);
});
afterAll(async () => {
  await harness.close();
  output.restore();
});

test('a hung service: every route answers our JSON within its function timeout, and each timeout is counted', async () => {
  const results = await callEveryRoute(harness, harness.api);

  expectAnsweredInTime(results);
  const counted = output.text().match(/"UpstreamServerErrors":1/g) ?? [];
  expect(counted).toHaveLength(results.filter(({ call }) => call.callsService).length);
}, 60_000);
