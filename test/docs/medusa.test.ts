// docs/medusa.md is what a Medusa shop copies: its options table, the provider's ids, the cancel guard's mount and
// the storefront's widget component are checked here against the package, the e2e shop and the widget.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { MerchantPaymentsProvider, orderCancelGuard } from '../../packages/medusa-payment/src';
import { resolveOptions } from '../../packages/medusa-payment/src/options';

const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const guide = read('docs/medusa.md');

/** The code block of `language` under the heading `heading`, and the text of that section before it. */
function section(heading: string, language: string): { code: string; prose: string } {
  const start = guide.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/medusa.md has no section "${heading}"`);
  const end = guide.indexOf('\n## ', start + 1);
  const text = guide.slice(start, end < 0 ? undefined : end);
  const block = new RegExp('```' + language + '\\n([\\s\\S]*?)\\n```').exec(text);
  if (!block) throw new Error(`"${heading}" has no ${language} block`);
  return { code: block[1], prose: text.replace(block[0], '') };
}

/** The names of an exported interface's members, read from its source. */
function interfaceMembers(path: string, name: string): string[] {
  const source = ts.createSourceFile(path, read(path), ts.ScriptTarget.Latest);
  const found = source.statements.find(
    (statement): statement is ts.InterfaceDeclaration =>
      ts.isInterfaceDeclaration(statement) && statement.name.text === name,
  );
  if (!found) throw new Error(`${path} has no interface ${name}`);
  return found.members.map((member) => (member.name as ts.Identifier).text);
}

/** The keys of the object literal passed as `argument` (0-based) to the first call of `callee` in `code`. */
function objectKeysPassed(code: string, callee: string, argument: number): string[] {
  const source = ts.createSourceFile('snippet.tsx', code, ts.ScriptTarget.Latest, false, ts.ScriptKind.TSX);
  let keys: string[] | undefined;
  const visit = (node: ts.Node) => {
    if (keys) return;
    if (ts.isCallExpression(node) && node.expression.getText(source) === callee) {
      const given = node.arguments[argument];
      if (given && ts.isObjectLiteralExpression(given)) {
        keys = given.properties.map((property) => (property.name as ts.Identifier).text);
        return;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (!keys) throw new Error(`no call of ${callee} with an object found`);
  return keys;
}

const REQUIRED = {
  api_url: 'https://payments.example.com',
  storefront_token: 'storefront-token-1',
  admin_token: 'admin-token-1',
  webhook_secret: `whsec_${Buffer.from('a webhook secret of 32 bytes....').toString('base64')}`,
  url_success: 'https://shop.example/paid',
  url_failed: 'https://shop.example/failed',
};

describe('Install', () => {
  const { code, prose } = section('Install', 'ts');
  const rows = [...prose.matchAll(/^\| (`[^|]+`(?:, `[^|]+`)*) +\| ([^|]+)\|$/gm)];
  const optionOf = (row: RegExpMatchArray) => [...row[1].matchAll(/`([^`]+)`/g)].map(([, name]) => name);
  const resolved = resolveOptions(REQUIRED);

  test('the options table names every option the provider takes, and no other', () => {
    expect(rows.flatMap(optionOf).sort()).toEqual(Object.keys(resolved).sort());
  });

  test("the table's defaults are the provider's", () => {
    const meaning = (name: string) => rows.find((row) => optionOf(row).includes(name))?.[2] ?? '';
    expect(meaning('title')).toContain(`\`${resolved.title}\` by default`);
    expect(meaning('max_attempts')).toContain(`(${resolved.max_attempts})`);
    expect(meaning('request_timeout_ms')).toContain(`(${resolved.request_timeout_ms / 1000} s)`);
  });

  test('the medusa-config example gives options the table names', () => {
    const given = [...code.matchAll(/^ {14}(\w+):/gm)].map(([, name]) => name);
    expect(given.length).toBeGreaterThan(0);
    expect(Object.keys(resolved)).toEqual(expect.arrayContaining(given));
  });

  test("the provider's id and webhook route are the ones Medusa makes of its identifier and the example's id", () => {
    const id = /\bid: '([^']+)'/.exec(code)?.[1];
    const made = `${MerchantPaymentsProvider.identifier}_${id}`;
    expect(prose).toContain(`\`https://<medusa>/hooks/payment/${made}\``);
    expect(prose).toContain(`\`pp_${made}\``);
  });
});

describe('the cancel guard', () => {
  const { code } = section('What the shop must do', 'ts');
  const shop = read('e2e/medusa/src/api/middlewares.js');

  test('the example mounts the exported guard where the e2e shop mounts it', () => {
    expect(typeof orderCancelGuard).toBe('function');
    expect(code).toContain("import { orderCancelGuard } from '@merchant-payments/medusa-payment';");
    for (const text of ["matcher: '/admin/orders/:id/cancel'", "methods: ['POST']"]) {
      expect(code).toContain(text);
      expect(shop).toContain(text);
    }
  });
});

describe("the storefront's widget component", () => {
  const { code } = section("The storefront: Medusa's Next.js starter", 'tsx');

  test("it reads session data the provider writes, under Medusa's name for the provider", () => {
    const fields = /const \{ ([\w, ]+) \} = \(session\?\.data/.exec(code)?.[1].split(', ') ?? [];
    expect(fields).toEqual(['invoice_url', 'client_secret']);
    expect(interfaceMembers('packages/medusa-payment/src/provider.ts', 'SessionData')).toEqual(
      expect.arrayContaining(fields),
    );
    expect(code).toContain(`providerId?.startsWith('pp_${MerchantPaymentsProvider.identifier}')`);
  });

  test('it mounts the widget with options the widget takes, the required ones included', () => {
    const members = interfaceMembers('web/apps/widget/widget.ts', 'MountOptions');
    const given = objectKeysPassed(code, 'mount', 1);
    expect(members).toEqual(expect.arrayContaining(given));
    expect(given).toEqual(expect.arrayContaining(['invoiceUrl', 'clientSecret']));
  });
});
