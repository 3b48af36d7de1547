import { createServer, request } from 'node:http';
import { listen } from '../../local/listen';
import { runSoak } from '../../soak/run';
import { captureOutput } from '../support/output';

// The checker can fail end to end: a throwaway change of the wiring swallows one webhook event, every copy of it
// (the dispatcher is told 200, the shop never hears it), and the soak's checker names that order.

test('a webhook event skipped on the way to the shop is reported by invariant 7', async () => {
  let skipped: string | undefined;
  let skippedId: string | undefined;
  const output = captureOutput();
  let result;
  try {
    result = await runSoak({
      seed: 7,
      orders: 12,
      rates: { service: 0, callbacks: 0, kills: 0, store: 0, shop: 0, moves: 0 },
      inFrontOfShop: async (shopUrl) => {
        const shop = new URL(shopUrl);
        const server = createServer((incoming, answer) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('end', () => {
            const body = Buffer.concat(chunks);
            const event = JSON.parse(body.toString('utf8'));
            // Every copy of the chosen event is swallowed, so that a resend in the workload cannot make up for it.
            if (!skipped && event.type === 'invoice.paid')
              [skipped, skippedId] = [event.data.foreign_id, event.id];
            if (event.id === skippedId) return void answer.writeHead(200).end();
            const outgoing = request(
              {
                host: shop.hostname,
                port: shop.port,
                method: 'POST',
                path: incoming.url,
                headers: incoming.headers,
              },
              (response) => {
                answer.writeHead(response.statusCode ?? 502);
                response.pipe(answer);
              },
            );
            outgoing.on('error', () => answer.destroy());
            outgoing.end(body);
          });
        });
        return listen(server, 0);
      },
    });
  } finally {
    output.restore();
  }

  expect(skipped).toEqual(expect.any(String));
  // Reported as a gap in the order's events (`invoice:<order>`), or as its last event behind its view when no later
  // event came.
  const delivered = result.results[6];
  const subjects = delivered.violations.map((violation) => violation.subject);
  expect(subjects.some((subject) => subject === skipped || subject === `invoice:${skipped}`)).toBe(true);
  expect(result.passed).toBe(false);
}, 300_000);
