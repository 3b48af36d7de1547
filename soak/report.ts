import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { upstreamSubject } from './checker';
import type { SoakResult } from './run';

/** Counter-examples kept per invariant in the printout and the report file. */
const SHOWN = 5;
const KEPT = 50;

/** The run's figures and each invariant's count and counter-examples, as printed lines. */
export function summary({ figures, results }: Pick<SoakResult, 'figures' | 'results'>): string[] {
  const { faults } = figures;
  const lines = [
    `seed ${figures.seed}: ${figures.orders} orders, ${figures.calls} API calls (${figures.retries} retries), ${figures.events} webhook events (${figures.webhookAttempts} attempts), ${figures.seconds} s (${figures.cpuSeconds} s of CPU)`,
    `faults: service ${text(faults.service)}; DynamoDB ${text(faults.store)}; callbacks ${text(faults.callbacks)}; killed ${text(faults.kills)}; shop ${text(faults.shop)}; moves ${text(faults.moves)}`,
    `outcomes: ${text(figures.outcomes)}`,
  ];
  for (const result of results) {
    const mark = result.violations.length === 0 ? 'ok  ' : 'FAIL';
    lines.push(
      `${mark} ${result.number}. ${result.name}: ${result.checked} checked, ${result.violations.length} violations`,
    );
    for (const example of result.violations.slice(0, SHOWN)) {
      lines.push(`       ${example.subject}: ${example.detail}`);
    }
  }
  return lines;
}

/** Writes the failing run's counter-examples, and the calls and events of the orders they name, to a small file. */
export function writeReport(result: SoakResult, folder: string): string {
  mkdirSync(folder, { recursive: true });
  const subjects = new Set(result.results.flatMap((r) => r.violations.slice(0, SHOWN).map((v) => v.subject)));
  const { history } = result;
  const report = {
    replay: `npm run soak -- --seed ${history.seed} --orders ${result.figures.orders}`,
    figures: result.figures,
    invariants: result.results.map((r) => ({ ...r, violations: r.violations.slice(0, KEPT) })),
    histories: Object.fromEntries(
      [...subjects].map((subject) => [
        subject,
        {
          calls: history.calls.filter((call) => call.order === subject),
          events: history.deliveries.filter((delivery) => delivery.subject === subject),
          store: history.stores?.[subject],
          account: history.accounts?.invoices[subject],
          callbacks: (history.callbacks ?? []).filter((c) => upstreamSubject(c.subject) === subject),
          view: history.final.invoices[subject],
          upstream: history.upstream.invoices.filter(
            (invoice) => upstreamSubject(invoice.foreign_id) === subject,
          ),
          upstreamOwn: Object.fromEntries(
            Object.entries(history.upstream.own ?? {}).map(([store, own]) => [
              store,
              own.invoices.filter((invoice) => upstreamSubject(invoice.foreign_id) === subject),
            ]),
          ),
        },
      ]),
    ),
  };
  const file = path.join(folder, `soak-${history.seed}-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify(report, null, 2));
  return file;
}

function text(counts: Record<string, number>): string {
  return Object.entries(counts)
    .map(([key, count]) => `${key} ${count}`)
    .join(', ');
}
