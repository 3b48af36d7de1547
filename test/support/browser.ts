// A real browser for the page tests: Debian's chromium (installed by scripts/ensure-chromium.sh, which `npm test`
// runs first) driven by playwright-core, with axe-core for accessibility and a screenshot of each state.
import { readFileSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const ACTION_TIMEOUT_MS = 60_000;

/** Where each state's screenshot lands: a test artifact to look at, not something a test compares. */
export const SCREENSHOT_DIR = path.join(__dirname, '..', '..', 'test-artifacts', 'screenshots');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/**
 * A page that fails the test on any script error or CSP violation it reports, instead of letting a broken page
 * pass on what happened to render; `errors` lists them for the assertion.
 */
export async function openPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  // Every wait and action ends as soon as it can; on a busy 2-core machine some take longer than the default 30 s.
  context.setDefaultTimeout(ACTION_TIMEOUT_MS);
  // The browser asks every origin for a favicon; its 404 is the browser's business, not the page's error.
  await context.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }));
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return { page, errors };
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's violations on the page as it is now, as `rule: selector` lines. It runs through the DevTools
 * protocol, which the page's CSP does not govern, so the page under test keeps its real headers.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return violations.flatMap((violation) =>
    violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')} (${violation.help})`),
  );
}

interface AxeViolation {
  id: string;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** Saves the page as `<name>.png` under SCREENSHOT_DIR. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}
