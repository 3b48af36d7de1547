// Links to a deposit on a block explorer: a URL template per currency, `{txid}` standing for the transaction id.

/** Templates by currency code, as the payment service names its currencies. */
export type ExplorerTemplates = Readonly<Record<string, string>>;

/** One public explorer for each currency the sandbox offers; a stage's `explorerUrls` setting overrides them. */
export const DEFAULT_EXPLORER_URLS: ExplorerTemplates = {
  BTC: 'https://mempool.space/tx/{txid}',
  ETH: 'https://etherscan.io/tx/{txid}',
  LTC: 'https://litecoinspace.org/tx/{txid}',
  // The sandbox's USDT is the TRC-20 token, which lives on TRON.
  USDT: 'https://tronscan.org/#/transaction/{txid}',
  XRP: 'https://xrpscan.com/tx/{txid}',
  TRX: 'https://tronscan.org/#/transaction/{txid}',
};

const PLACEHOLDER = '{txid}';
/** Currency codes as the service writes them: a few letters, digits, `-` or `_`. */
const CURRENCY_CODE = /^[A-Za-z0-9_-]{1,32}$/;
/** Long enough for any explorer's address; a template is configuration, never the service's text. */
const TEMPLATE_MAX_LENGTH = 512;

/** Why a template cannot be used, or undefined when it can: an http(s) URL with `{txid}` in it. */
export function explorerTemplateProblem(template: unknown): string | undefined {
  if (typeof template !== 'string' || template.length > TEMPLATE_MAX_LENGTH)
    return `must be a string of at most ${TEMPLATE_MAX_LENGTH} characters`;
  if (!template.includes(PLACEHOLDER)) return `must contain ${PLACEHOLDER}`;
  let url: URL;
  try {
    url = new URL(template.replaceAll(PLACEHOLDER, 'txid'));
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http:// or https:// URL';
  if (url.username || url.password) return 'must not carry credentials';
  return undefined;
}

/**
 * The defaults with the given templates over them, read from a JSON object of currency codes to templates (an empty
 * string removes a currency's link). Throws an Error naming the first currency whose template cannot be used.
 */
export function explorerTemplates(overrides: unknown): ExplorerTemplates {
  if (overrides === undefined || overrides === null || overrides === '') return DEFAULT_EXPLORER_URLS;
  const given = typeof overrides === 'string' ? parsed(overrides) : overrides;
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    throw new Error('Explorer URLs must be an object of currency codes to URL templates.');
  const merged: Record<string, string> = { ...DEFAULT_EXPLORER_URLS };
  for (const [currency, template] of Object.entries(given)) {
    if (!CURRENCY_CODE.test(currency))
      throw new Error(`Explorer URLs: "${currency}" is not a currency code.`);
    if (template === '') {
      delete merged[currency];
      continue;
    }
    const problem = explorerTemplateProblem(template);
    if (problem) throw new Error(`Explorer URL for ${currency} ${problem}.`);
    merged[currency] = template as string;
  }
  return merged;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('Explorer URLs must be a JSON object of currency codes to URL templates.');
  }
}

/** The deposit's link, its txid URL-encoded into the currency's template; null for a currency with none. */
export function explorerUrl(templates: ExplorerTemplates, currency: string, txid: string): string | null {
  const template = Object.hasOwn(templates, currency) ? templates[currency] : undefined;
  return template === undefined ? null : template.replaceAll(PLACEHOLDER, encodeURIComponent(txid));
}
