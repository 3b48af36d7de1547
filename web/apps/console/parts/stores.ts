// The platform token's Stores pages: the list, a store's settings, making a store (its tokens and webhook secret
// shown once), editing it (processing keys write-only: never shown), rotating its tokens, disabling and enabling.
// The store routes take no `Store-Id`: they name the store in the path.
import { el, show } from '../../shared/dom';
import {
  storePath,
  type Api,
  type CreatedStore,
  type RotatedTokens,
  type Store,
  type StoreList,
} from './api';
import { time } from './format';
import { confirmDialog, errorText, facts, helpToolbar, recordHead, showPager, table } from './page';
import { copyButton, focusOnce, shownOnce } from './secrets';
import { DEFAULT_STORE_ID, heading, remembered, type ViewContext } from './view';

/** What the Stores pages need of the console beyond a view's context. */
export interface Platform {
  /** The platform token's API, acting for no store in particular. */
  api: Api;
  /** Works on `store` from now on, going to `hash` (the same section by default). */
  switchTo(store: string, hash?: string): void;
  /** A store was made or changed: the switcher reads the list again. */
  storesChanged(): void;
}

const PAGE_SIZE = 20;

/** How long the previous tokens keep working after a rotation: the API's default first. */
const GRACE_PERIODS: ReadonlyArray<[label: string, seconds: number]> = [
  ['For 1 day', 86_400],
  ['For 1 hour', 3_600],
  ['For 7 days', 604_800],
  ['Not at all: they stop now', 0],
];

export async function storesView(context: ViewContext, platform: Platform): Promise<void> {
  const { root } = context;
  const results = el('div', { class: 'panel' });
  const pager = el('nav', { 'aria-label': 'Pages', class: 'pager' });
  show(
    root,
    heading('Stores'),
    helpToolbar(
      'Each store has its own orders, tokens and webhooks. The default store is the deployment’s own.',
      el('a', { href: '#new-store', class: 'button button-primary' }, 'New store'),
    ),
    results,
    pager,
  );
  await showPage(context, platform, results, pager);
}

async function showPage(
  context: ViewContext,
  platform: Platform,
  results: HTMLElement,
  pager: HTMLElement,
): Promise<void> {
  const { feedback } = context;
  const state = remembered(context, 'stores', () => ({ cursors: [undefined] as Array<string | undefined> }));
  const page = state.cursors.length;
  const list = await feedback.load(results, 'Loading stores…', () =>
    platform.api.get<StoreList>('/stores', { limit: String(PAGE_SIZE), cursor: state.cursors[page - 1] }),
  );
  if (!list) return;
  show(
    results,
    list.data.length === 0
      ? el('p', { class: 'empty' }, 'No more stores.')
      : table(
          `Stores, page ${page}`,
          ['Store', 'Id', 'Status', 'Payment account', 'Created'],
          list.data.map((store) => [
            el('a', { href: `#stores/${encodeURIComponent(store.id)}` }, store.name),
            el('code', {}, store.id),
            statusBadge(store),
            accountWords(store),
            time(store.created_at),
          ]),
        ),
  );
  const count = `${list.data.length} store${list.data.length === 1 ? '' : 's'}`;
  showPager(pager, state, list, count, feedback, () => void showPage(context, platform, results, pager));
}

function statusBadge(store: Store): HTMLElement {
  return store.status === 'active'
    ? el('span', { class: 'badge badge-active' }, 'Active')
    : el('span', { class: 'badge badge-disabled' }, 'Disabled');
}

function accountWords(store: Store): string {
  return store.account === 'own' ? 'Its own' : 'Shared';
}

function backLink(): HTMLElement {
  return el('a', { href: '#stores', class: 'back' }, '← All stores');
}

/** What the store's page says once it is drawn, after the edit page saved and went there. */
let savedNews: string | undefined;

/** One store's settings, and what can be done to it. */
export async function storeView(context: ViewContext, platform: Platform, storeId: string): Promise<void> {
  const { feedback, root } = context;
  const news = savedNews;
  savedNews = undefined;
  show(root, backLink(), heading(`Store ${storeId}`));
  const store = await feedback.load(root, 'Loading the store…', () =>
    platform.api.get<Store>(storePath(storeId)),
  );
  if (!store) return;
  const h1 = drawStore(context, platform, store);
  if (document.activeElement === document.body) h1.focus();
  feedback.say(news ?? `Store ${store.id} loaded.`);
}

function drawStore(context: ViewContext, platform: Platform, store: Store, once?: HTMLElement): HTMLElement {
  const { feedback, root } = context;
  const h1 = heading(store.name);
  const isDefault = store.id === DEFAULT_STORE_ID;
  const workIn = el('button', { type: 'button', class: 'button button-primary' }, 'Open its orders');
  workIn.addEventListener('click', () => platform.switchTo(store.id, '#invoices'));
  const callback: Node | string =
    store.callback_url === null
      ? 'This deployment’s, shared'
      : el(
          'span',
          {},
          el('code', {}, store.callback_url),
          ' ',
          copyButton(feedback, 'Callback URL', store.callback_url),
          el(
            'span',
            { class: 'help' },
            'Give this URL to the payment service as the callback URL of the store’s merchant account.',
          ),
        );
  show(
    root,
    backLink(),
    recordHead(h1, ['Store ', el('code', {}, store.id), ' · ', statusBadge(store)]),
    once,
    store.status === 'disabled' &&
      el(
        'p',
        { class: 'notice notice-warning' },
        'This store is disabled: its storefront and admin tokens are refused. Its orders still get the payment service’s news, and its webhooks are still sent.',
      ),
    el(
      'section',
      { class: 'panel', 'aria-labelledby': 'store-settings-title' },
      el('h2', { id: 'store-settings-title' }, 'Settings'),
      facts([
        ['Name', store.name],
        ['Status', store.status === 'active' ? 'Active' : 'Disabled'],
        [
          'Payment account',
          store.account === 'own'
            ? 'Its own merchant account (its keys are kept secret and never shown)'
            : 'This deployment’s account, shared',
        ],
        ...(store.account === 'own'
          ? ([['Payment service URL', store.base_url ?? '—']] as Array<[string, Node | string]>)
          : []),
        ['Callback URL', callback],
        [
          'Webhook URL',
          store.webhook_url === null ? 'None: the store gets no webhooks' : el('code', {}, store.webhook_url),
        ],
        ['Created', time(store.created_at)],
        ['Changed', time(store.updated_at)],
      ]),
      isDefault &&
        el(
          'p',
          { class: 'help' },
          'The default store is the deployment’s own: its keys, tokens and webhook URL are the deployment’s settings, changed where the stack is deployed, not here.',
        ),
    ),
    el(
      'div',
      { class: 'actions' },
      workIn,
      !isDefault &&
        el('a', { href: `#stores/${encodeURIComponent(store.id)}/edit`, class: 'button' }, 'Edit settings'),
      !isDefault && rotateButton(context, platform, store),
      !isDefault && statusButton(context, platform, store),
    ),
  );
  return h1;
}

function rotateButton(context: ViewContext, platform: Platform, store: Store): HTMLButtonElement {
  const button = el('button', { type: 'button', class: 'button' }, 'Rotate tokens…');
  button.addEventListener('click', () => {
    const grace = el(
      'select',
      { id: 'grace', name: 'grace' },
      ...GRACE_PERIODS.map(([label, seconds]) => el('option', { value: String(seconds) }, label)),
    );
    confirmDialog({
      title: `Rotate the tokens of ${store.name}?`,
      body: [
        el(
          'p',
          {},
          'The store gets a new storefront token and a new admin token, shown once. Put them in the shop’s settings before the old ones stop working.',
        ),
        el('div', { class: 'field' }, el('label', { for: 'grace' }, 'Keep the old tokens working'), grace),
      ],
      confirm: 'Rotate tokens',
      dismiss: 'Keep the tokens',
      destructive: true,
      action: async () => {
        const graceSeconds = Number(grace.value);
        const rotated = await platform.api.post<RotatedTokens>(storePath(store.id, 'tokens', 'rotate'), {
          grace_seconds: graceSeconds,
        });
        drawStore(context, platform, rotated.store, rotatedPanel(context, rotated, graceSeconds));
        context.feedback.say(`New tokens for ${rotated.store.name}: copy them now, they are shown once.`);
        return focusOnce(context.root);
      },
    });
  });
  return button;
}

function rotatedPanel(context: ViewContext, rotated: RotatedTokens, graceSeconds: number): HTMLElement {
  return shownOnce(
    context.feedback,
    'The new tokens',
    [
      {
        label: 'Storefront token',
        value: rotated.storefront_token,
        use: 'For the shop’s checkout and the payment widget.',
      },
      {
        label: 'Admin token',
        value: rotated.admin_token,
        use: 'For this console and the shop’s back office.',
      },
    ],
    [
      el(
        'p',
        { class: 'old-tokens' },
        graceSeconds === 0
          ? 'The old tokens stopped working now.'
          : `The old tokens keep working until ${time(rotated.previous_tokens_expire_at)}, then they are refused.`,
      ),
    ],
  );
}

function statusButton(context: ViewContext, platform: Platform, store: Store): HTMLButtonElement {
  const disabling = store.status === 'active';
  const button = el(
    'button',
    { type: 'button', class: `button${disabling ? ' button-danger' : ''}` },
    disabling ? 'Disable store…' : 'Enable store…',
  );
  button.addEventListener('click', () =>
    confirmDialog({
      title: `${disabling ? 'Disable' : 'Enable'} ${store.name}?`,
      body: [
        el(
          'p',
          {},
          disabling
            ? 'Its storefront and admin tokens are refused until you enable it again: the shop cannot take payments. Orders already made still get the payment service’s news, and its webhooks are still sent.'
            : 'Its storefront and admin tokens work again, and the shop can take payments.',
        ),
      ],
      confirm: disabling ? 'Disable store' : 'Enable store',
      dismiss: disabling ? 'Keep it active' : 'Keep it disabled',
      destructive: disabling,
      action: async () => {
        const changed = await platform.api.post<Store>(storePath(store.id, disabling ? 'disable' : 'enable'));
        platform.storesChanged();
        const h1 = drawStore(context, platform, changed);
        context.feedback.say(`${changed.name} is ${disabling ? 'disabled' : 'enabled'}.`);
        return h1;
      },
    }),
  );
  return button;
}

/** A labelled input, with help under it that the input names as its description. */
function field(
  id: string,
  label: string,
  attributes: Record<string, string>,
  help?: string,
): { input: HTMLInputElement; wrapper: HTMLElement } {
  const input = el('input', {
    id,
    name: id,
    ...attributes,
    ...(help ? { 'aria-describedby': `${id}-help` } : {}),
  });
  return {
    input,
    wrapper: el(
      'div',
      { class: 'field' },
      el('label', { for: id }, label),
      input,
      help && el('p', { id: `${id}-help`, class: 'help' }, help),
    ),
  };
}

/** The processing keys' fields: write-only, never filled in from the API. */
function keyFields(baseUrl: string) {
  const secret = { type: 'password', autocomplete: 'off', spellcheck: 'false' };
  const apiKey = field('store-api-key', 'API key', secret);
  const secretKey = field('store-secret-key', 'Secret key', secret);
  const base = field(
    'store-base-url',
    'Payment service URL',
    { type: 'url', value: baseUrl, spellcheck: 'false' },
    'The address of the payment service’s API for this account.',
  );
  return {
    fields: [apiKey.wrapper, secretKey.wrapper, base.wrapper],
    /** The keys to send, or undefined when none were typed. */
    value: () => {
      const api_key = apiKey.input.value.trim();
      const secret_key = secretKey.input.value.trim();
      if (!api_key && !secret_key) return undefined;
      return { api_key, secret_key, base_url: base.input.value.trim() };
    },
    clear: () => {
      apiKey.input.value = '';
      secretKey.input.value = '';
    },
  };
}

export async function newStoreView(context: ViewContext, platform: Platform): Promise<void> {
  const { feedback, root } = context;
  const id = field(
    'store-id',
    'Store id',
    { required: '', maxlength: '32', autocomplete: 'off', spellcheck: 'false' },
    'Up to 32 lowercase letters, digits and -, starting and ending with a letter or digit. It cannot be changed later.',
  );
  const name = field('store-name', 'Name', { required: '', maxlength: '100', autocomplete: 'off' });
  const webhook = field(
    'store-webhook-url',
    'Webhook URL (optional)',
    { type: 'url', spellcheck: 'false' },
    'Where the shop receives the store’s payment events. Leave empty for none.',
  );
  const own = el('input', { id: 'store-own-account', name: 'store-own-account', type: 'checkbox' });
  const keys = keyFields('');
  const keysBox = el(
    'fieldset',
    { class: 'keys' },
    el('legend', {}, 'The store’s own merchant account'),
    el('p', { class: 'help' }, 'Its keys are kept secret: no page or answer shows them again once saved.'),
    ...keys.fields,
  );
  keysBox.hidden = true;
  own.addEventListener('change', () => (keysBox.hidden = !own.checked));
  const submit = el('button', { type: 'submit', class: 'button button-primary' }, 'Create store');
  const form = el(
    'form',
    { class: 'panel store-form' },
    id.wrapper,
    name.wrapper,
    webhook.wrapper,
    el(
      'div',
      { class: 'check' },
      own,
      el('label', { for: 'store-own-account' }, 'It has its own merchant account with the payment service'),
    ),
    el(
      'p',
      { class: 'help' },
      'Otherwise it shares this deployment’s account, and the deployment’s callback URL.',
    ),
    keysBox,
    submit,
  );
  show(root, el('a', { href: '#stores', class: 'back' }, '← All stores'), heading('New store'), form);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    const processing = own.checked ? keys.value() : undefined;
    const created = await feedback.load(form, 'Creating the store…', () =>
      platform.api.post<CreatedStore>('/stores', {
        id: id.input.value.trim(),
        name: name.input.value.trim(),
        ...(webhook.input.value.trim() ? { webhook_url: webhook.input.value.trim() } : {}),
        ...(processing ? { processing } : {}),
      }),
    );
    submit.disabled = false;
    if (!created) return;
    keys.clear();
    platform.storesChanged();
    // The secrets are drawn in this view only: a later visit to the store, or a reload, cannot show them again.
    // The URL becomes the store's, in place of the form's, without drawing the page again.
    history.replaceState(null, '', `#stores/${encodeURIComponent(created.store.id)}`);
    drawStore(context, platform, created.store, createdPanel(context, created));
    focusOnce(root);
    feedback.say(
      `Store ${created.store.id} created: copy its tokens and webhook secret now, they are shown once.`,
    );
  });
}

function createdPanel(context: ViewContext, created: CreatedStore): HTMLElement {
  return shownOnce(context.feedback, 'The store’s tokens and webhook secret', [
    {
      label: 'Storefront token',
      value: created.storefront_token,
      use: 'For the shop’s checkout and the payment widget.',
    },
    { label: 'Admin token', value: created.admin_token, use: 'For this console and the shop’s back office.' },
    {
      label: 'Webhook secret',
      value: created.webhook_secret,
      use: 'For the shop to check the signature of each webhook.',
    },
  ]);
}

export async function editStoreView(
  context: ViewContext,
  platform: Platform,
  storeId: string,
): Promise<void> {
  const { feedback, root } = context;
  const back = el('a', { href: `#stores/${encodeURIComponent(storeId)}`, class: 'back' }, '← The store');
  show(root, back, heading(`Edit store ${storeId}`));
  const store = await feedback.load(root, 'Loading the store…', () =>
    platform.api.get<Store>(storePath(storeId)),
  );
  if (!store) return;
  const name = field('store-name', 'Name', { required: '', maxlength: '100', autocomplete: 'off' });
  name.input.value = store.name;
  const webhook = field(
    'store-webhook-url',
    'Webhook URL',
    { type: 'url', spellcheck: 'false' },
    'Leave empty to send the store no webhooks.',
  );
  webhook.input.value = store.webhook_url ?? '';
  const keys = keyFields(store.base_url ?? '');
  const submit = el('button', { type: 'submit', class: 'button button-primary' }, 'Save changes');
  const problem = el('div', { role: 'alert' });
  const form = el(
    'form',
    { class: 'panel store-form' },
    name.wrapper,
    webhook.wrapper,
    el(
      'fieldset',
      { class: 'keys' },
      el('legend', {}, store.account === 'own' ? 'New merchant account keys' : 'Its own merchant account'),
      el(
        'p',
        { class: 'help' },
        store.account === 'own'
          ? 'Leave empty to keep the current keys, which are never shown. New keys replace them once saved.'
          : 'Leave empty to keep sharing this deployment’s account. Keys typed here give the store its own account; they are never shown again.',
      ),
      ...keys.fields,
    ),
    problem,
    submit,
  );
  show(root, back, heading(`Edit ${store.name}`), form);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    show(problem);
    const processing = keys.value();
    try {
      await platform.api.patch<Store>(storePath(store.id), {
        name: name.input.value.trim(),
        webhook_url: webhook.input.value.trim() || null,
        ...(processing ? { processing } : {}),
      });
    } catch (error) {
      submit.disabled = false;
      show(problem, el('p', { class: 'notice notice-error' }, errorText(error)));
      return;
    }
    keys.clear();
    platform.storesChanged();
    // The store's page, as a new history entry; it says what was saved.
    savedNews = `${name.input.value.trim()} is saved.`;
    location.hash = `#stores/${encodeURIComponent(store.id)}`;
  });
}
