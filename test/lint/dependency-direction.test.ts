// The import rules of eslint.config.mjs at work: each line below is linted as if it stood in the file named.
// ESLint loads its config with a dynamic import, which jest's module system does not run, so one child process
// lints every case with the project's own config.
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

type Verdict = 'refused' | 'allowed';

const CASES: Array<[file: string, source: string, verdict: Verdict]> = [
  ['domain/any.ts', "import { x } from './model';", 'allowed'],
  ['domain/any.ts', "import { x } from 'decimal.js';", 'allowed'],
  ['domain/any.ts', "import type { x } from '../processing/wire';", 'refused'],
  ['domain/any.ts', "import { x } from '../processing/errors';", 'refused'],
  ['domain/any.ts', "export { x } from '../http/errors';", 'refused'],
  ['domain/any.ts', "import { x } from '../runtime/deadline';", 'refused'],
  ['processing/any.ts', "import type { x } from '../domain/ports';", 'allowed'],
  ['processing/any.ts', "import { x } from '../domain/errors';", 'allowed'],
  ['processing/any.ts', "import { Decimal } from '../domain/decimal';", 'allowed'],
  ['processing/any.ts', "import { x } from './wire';", 'allowed'],
  ['processing/any.ts', "import { x } from '../domain/invoices';", 'refused'],
  ['processing/any.ts', "import { x } from '../runtime/deadline';", 'refused'],
  ['processing/any.ts', "import { x } from '../http/errors';", 'refused'],
  ['processing/any.ts', "import { x } from '../store/table';", 'refused'],
  ['store/any.ts', "import type { x } from '../domain/model';", 'allowed'],
  ['store/any.ts', "import type { x } from '../domain/webhook-model';", 'allowed'],
  ['store/any.ts', "import type { x } from '../domain/ids';", 'allowed'],
  ['store/any.ts', "import { x } from '../lib/routes';", 'refused'],
  ['store/any.ts', "import { x } from '../functions/checkout';", 'refused'],
  ['secrets/any.ts', "import type { x } from '../http/route';", 'refused'],
  ['http/any.ts', "import { x } from '../domain/errors';", 'allowed'],
  ['http/any.ts', "import type { x } from '../lib/routes';", 'allowed'],
  ['http/any.ts', "import { x } from '../processing/client';", 'refused'],
  ['http/any.ts', "import { x } from '../store/versioned-store';", 'refused'],
  ['http/any.ts', "import { x } from '../runtime/processing';", 'refused'],
  ['http/any.ts', "import { x } from '../runtime/invocation';", 'allowed'],
  ['http/any.ts', "import { x } from '../lib/plugin-api';", 'refused'],
  ['http/schemas/any.ts', "import { x } from '../../processing/money';", 'refused'],
  ['http/schemas/any.ts', "import { x } from '../../store/table';", 'refused'],
  ['http/schemas/any.ts', "import type { x } from '../../lib/routes';", 'allowed'],
  ['http/validate.ts', "import { x } from '../processing/money';", 'refused'],
  ['http/schemas/fields.ts', "import { x } from '../../processing/money';", 'allowed'],
  ['http/schemas/fields.ts', "import { x } from '../../processing/client';", 'refused'],
  ['observability/any.ts', "import { x } from './context';", 'allowed'],
  ['observability/any.ts', "import { x } from '../runtime/deadline';", 'refused'],
  ['observability/any.ts', "import type { x } from '../domain/model';", 'refused'],
  ['runtime/any.ts', "import { x } from '../observability/context';", 'allowed'],
  ['runtime/any.ts', "import { x } from '../processing/client';", 'allowed'],
  ['runtime/any.ts', "import { x } from '../functions/checkout';", 'refused'],
  ['functions/any.ts', "import { x } from '../lib/routes';", 'allowed'],
  ['functions/any.ts', "import { x } from '../runtime/processing';", 'allowed'],
  ['functions/any.ts', "import { x } from '../lib/plugin-function';", 'refused'],
  ['sandbox/any.ts', "import { x } from '../lib/settings';", 'refused'],
  ['lib/any.ts', "import { x } from './plugin-api';", 'allowed'],
  ['local/any.ts', "import { x } from '../lib/plugin-api';", 'allowed'],
  ['local/any.ts', "import { x } from '../client/plugin-client';", 'allowed'],
  ['test/any.test.ts', "import { x } from '../processing/client';", 'allowed'],
  ['packages/medusa-payment/src/any.ts', "import { x } from './client';", 'allowed'],
  ['packages/medusa-payment/src/any.ts', "import { x } from 'openapi-fetch';", 'allowed'],
  ['packages/medusa-payment/src/any.ts', "import type { x } from '../../../client/api';", 'refused'],
  ['packages/medusa-payment/src/any.ts', "import { x } from '../../../webhooks/signing';", 'refused'],
];

const LINT_ALL = `
import { ESLint } from 'eslint';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const eslint = new ESLint();
const verdicts = [];
for (const [file, source] of JSON.parse(input)) {
  const [result] = await eslint.lintText(source + '\\nexport const used = x;\\n', { filePath: file });
  verdicts.push(result.messages.some((m) => m.ruleId === 'no-restricted-imports') ? 'refused' : 'allowed');
}
process.stdout.write(JSON.stringify(verdicts));
`;

let verdicts: Verdict[];

beforeAll(() => {
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', LINT_ALL], {
    cwd: ROOT,
    input: JSON.stringify(CASES),
    encoding: 'utf8',
  });
  verdicts = JSON.parse(output);
});

test.each(CASES.map((entry, index) => [...entry, index] as const))(
  '%s: %s is %s',
  (_file, _source, verdict, index) => {
    expect(verdicts[index]).toBe(verdict);
  },
);
