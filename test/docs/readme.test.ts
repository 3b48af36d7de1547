// The README states facts the code owns: routes and their tokens, statuses, local settings, the bench's figures.
// Each test reads one of them from the README and holds it to its source, so that neither drifts alone.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhook-model';
import { INVOICE_EXCEPTIONS, INVOICE_STATUS_NAMES } from '../../domain/outcome';
import { REFUND_STAGE_EVENTS } from '../../domain/webhooks';
import { ERROR_STATUSES } from '../../http/errors';
import { routes, type Access } from '../../lib/routes';
import { LOCAL_DEFAULTS } from '../../local/defaults';

const root = join(__dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The text of one `## ` section, without its heading. */
function section(heading: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "## ${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The cells of each row of the table whose header row matches `header`, header and rule left out. */
function table(text: string, header: RegExp): string[][] {
  const lines = text.split('\n');
  const first = lines.findIndex((line) => line.startsWith('|') && header.test(line));
  if (first < 0) throw new Error(`README has no table headed ${header}`);
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** The words in backticks in a cell. */
function codes(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
}

test('the README is at most 350 lines (issue 32)', () => {
  expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(350);
});

test('the route table names every route once, with the token it takes', () => {
  const tokenWords: Record<Access, string> = {
    storefront: 'storefront',
    admin: 'admin',
    platform: 'platform',
    customer: '`client_secret`',
    claimant: '`X-Claim-Token`',
    service: 'signature',
    public: 'none',
  };
  const documented = new Map<string, string>();
  for (const [routeCell, tokenCell] of table(section('The HTTP API'), /^\| route /)) {
    for (const code of codes(routeCell)) {
      const match = /^(GET|POST|PATCH) (\/[^?[]*)/.exec(code);
      if (!match) continue;
      const key = `${match[1]} ${match[2]}`;
      expect(documented.has(key)).toBe(false);
      documented.set(key, tokenCell);
    }
  }
  expect([...documented.keys()].sort()).toEqual(
    routes.map((route) => `${route.method} ${route.path}`).sort(),
  );
  for (const route of routes) {
    expect({ route: route.path, token: documented.get(`${route.method} ${route.path}`) }).toEqual({
      route: route.path,
      token: expect.stringContaining(tokenWords[route.access]),
    });
  }
});

test('the error table lists every code under the status http/errors.ts gives it', () => {
  const documented: Record<string, number> = {};
  for (const [statusCell, codeCell] of table(section('The HTTP API'), /^\| status +\| code /)) {
    // A row of two statuses, such as `401 / 403`, splits its codes at the same slash.
    const statuses = statusCell.split(' / ');
    const groups = codeCell.split(' / ');
    expect(groups).toHaveLength(statuses.length);
    statuses.forEach((status, index) => {
      for (const code of codes(groups[index])) {
        expect(documented[code]).toBeUndefined();
        documented[code] = Number(status);
      }
    });
  }
  // A health check names it in its `error`; no answer carries it.
  const { secrets_timeout: _healthOnly, ...answered } = ERROR_STATUSES;
  expect(documented).toEqual(answered);
});

test('the status table lists every status in order, and the glossary names the final ones', () => {
  const rows = table(section('The invoice view'), /^\| `status` +\| final /);
  expect(rows.map(([status]) => codes(status)[0])).toEqual([...INVOICE_STATUS_NAMES]);
  const finals = rows.filter(([, final]) => final === 'yes').map(([status]) => codes(status)[0]);
  const glossary = /\*\*Final:\*\*([^\n]*)/.exec(section('Glossary'))?.[1] ?? '';
  expect(codes(glossary)).toEqual(finals);
});

test('the exception table lists every exception', () => {
  const rows = table(section('The invoice view'), /^\| `exception` +\| meaning /);
  expect(rows.map(([exception]) => codes(exception)[0])).toEqual([...INVOICE_EXCEPTIONS]);
});

test('the webhook types include one per status a created invoice can reach, and the exception', () => {
  const types = codes(/\*\*Types:\*\*([\s\S]*?)\n- /.exec(section('Webhooks'))?.[1] ?? '');
  const invoiceTypes = types.filter((type) => type.startsWith('invoice.'));
  expect(invoiceTypes).toEqual([
    ...INVOICE_STATUS_NAMES.filter((status) => status !== 'creating').map((status) => `invoice.${status}`),
    'invoice.exception',
  ]);
});

test('the webhook types list every refund event, and the Refunds section every refund status, one line each', () => {
  const types = codes(/\*\*Types:\*\*([\s\S]*?)\n- /.exec(section('Webhooks'))?.[1] ?? '');
  expect(types.filter((type) => type.startsWith('refund.'))).toEqual(
    WEBHOOK_EVENT_TYPES.filter((type) => type.startsWith('refund.')),
  );
  const statuses = [...section('Refunds').matchAll(/^ {2}- `([a-z_]+)`/gm)].map((match) => match[1]);
  expect(statuses.sort()).toEqual(
    [
      'sending',
      'rejected',
      ...Object.keys(REFUND_STAGE_EVENTS).filter((stage) => stage !== 'sent'),
      'processing',
    ].sort(),
  );
});

test('the local settings table names every variable npm start reads, with its default', () => {
  const start = readFileSync(join(root, 'local', 'start.ts'), 'utf8');
  const numbers = [...start.matchAll(/localNumber\('([A-Z_]+)'\)/g)].map((match) => match[1]);
  expect(numbers.sort()).toEqual(Object.keys(LOCAL_DEFAULTS).sort());
  const read = new Set(
    [...start.matchAll(/process\.env\.([A-Z_]+)/g)].map((match) => match[1]).concat(numbers),
  );
  const defaults = new Map(Object.entries(LOCAL_DEFAULTS).map(([name, value]) => [name, String(value)]));
  const documented = new Map<string, string>();
  for (const [names, , given] of table(section('Run it locally'), /^\| variable /)) {
    const values = codes(given);
    codes(names).forEach((name, index) => documented.set(name, values[index] ?? given));
  }
  expect([...documented.keys()].sort()).toEqual([...read].sort());
  for (const [name, value] of defaults)
    expect({ name, value: documented.get(name) }).toEqual({ name, value });
});

test('the performance summary quotes the committed bench run', () => {
  const { figures } = JSON.parse(readFileSync(join(root, 'bench', 'results.json'), 'utf8')) as {
    figures: Array<{ id: string; value: number }>;
  };
  const figure = (id: string): number => {
    const found = figures.find((candidate) => candidate.id === id);
    if (!found) throw new Error(`bench/results.json has no figure ${id}; the README's Performance quotes it`);
    return found.value;
  };
  const ratio = (id: string) => `${figure(id).toFixed(2)}×`;
  const summary = section('Performance and reliability');
  for (const quoted of [
    ratio('checkout.sequential.ratio'),
    ratio('poll.sequential.ratio'),
    ratio('peer.warm.sequential.ratio'),
    ratio('peer.cold.init'),
    ratio('peer.cold.size'),
    `${figure('widget.gzipped').toFixed(2)} KB`,
    `about $${Math.round(figure('cost.total') / 10) * 10}`,
  ]) {
    expect({ quoted, found: summary.includes(quoted) }).toEqual({ quoted, found: true });
  }
});
