// The operator console: the operator pastes a token, which stays in this page's memory only (never storage, never
// a URL), and works on invoices and balances. `GET /tokens/current` says what the token is: a store's admin token
// works on that store alone; the platform token gets a store switcher and the Stores pages, and acts for the chosen
// store with `Store-Id`. Views follow the URL (the fragment, and `?store=` for the platform token), so that links,
// Back, Forward and a reload work; a refused token brings the sign-in back with the API's reason.
import { el, show } from '../shared/dom';
import { adminApi, ApiError, type Api, type CurrentToken } from './parts/api';
import { balancesView } from './parts/balances';
import { invoiceView } from './parts/invoice';
import { invoicesView } from './parts/invoices';
import { webhooksView } from './parts/webhooks';
import { Feedback } from './parts/page';
import { editStoreView, newStoreView, storesView, storeView, type Platform } from './parts/stores';
import { storeSwitcher, type StoreSwitcher } from './parts/switcher';
import { DEFAULT_STORE_ID, heading, type ViewContext } from './parts/view';
// esbuild bundles uPlot's stylesheet (imported by the chart) and this one into console.css, the page's one
// stylesheet, which takes the place of this file as served.
import './console.css';

const byId = (id: string) => document.getElementById(id)!;
const root = byId('view');
const sections = byId('sections');
const storesLink = byId('stores-link');
const storeArea = byId('store-area');
const signOutButton = byId('sign-out');
const feedback = new Feedback(byId('status'), byId('alert'));

interface Session {
  token: string;
  scope: 'platform' | 'admin';
  /** The store the console works on: the admin token's own, or the platform token's choice. */
  store: string;
  /** The store's admin routes: with `Store-Id` for the platform token. */
  api: Api;
  /** The platform token's own: the Stores pages and the switcher. */
  platform?: Platform & { switcher: StoreSwitcher };
}

let session: Session | undefined;
/** What views keep between visits, per store, until sign-out. */
const memories = new Map<string, Map<string, unknown>>();
/** The URL last drawn: a fragment link fires both popstate and hashchange, and one drawing is enough. */
let drawnUrl = '';

function signIn(refused?: ApiError): void {
  session = undefined;
  memories.clear();
  sections.hidden = true;
  storesLink.hidden = true;
  signOutButton.hidden = true;
  show(storeArea);
  const token = el('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    // A one-time code to the browser: neither saved nor offered as a password.
    autocomplete: 'one-time-code',
    required: '',
    'aria-describedby': 'token-help',
  });
  const submit = el('button', { type: 'submit', class: 'button button-primary' }, 'Sign in');
  // POST, so that even a submit without this script would not put the token in a URL.
  const form = el(
    'form',
    { method: 'post', class: 'panel sign-in' },
    heading('Sign in'),
    el('label', { for: 'token' }, 'Admin token or platform token'),
    token,
    el(
      'p',
      { id: 'token-help', class: 'help' },
      'A store’s admin token opens that store. The platform token opens every store. ',
      'Kept in this tab’s memory only: closing or reloading it signs you out.',
    ),
    submit,
  );
  show(root, form);
  if (refused) feedback.fail(refused);
  else feedback.clear();
  token.focus();
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    const value = token.value.trim();
    const checked = await feedback.load(form, 'Checking the token…', async () => {
      const current = await adminApi(value, () => undefined).get<CurrentToken>('/tokens/current');
      if (current.scope === 'storefront') throw STOREFRONT_REFUSED;
      return current;
    });
    submit.disabled = false;
    if (checked === undefined) {
      token.value = '';
      token.focus();
      return;
    }
    start(value, checked);
  });
}

const STOREFRONT_REFUSED = new ApiError(
  403,
  'forbidden',
  'This is a storefront token, for the shop’s checkout. The console needs the store’s admin token or the platform token.',
);

function start(token: string, current: CurrentToken): void {
  sections.hidden = false;
  signOutButton.hidden = false;
  if (current.scope === 'platform') {
    const api = adminApi(token, (error) => refused(token, error));
    const platform: Platform = {
      api,
      switchTo,
      storesChanged: () => void session?.platform?.switcher.load(session.store),
    };
    const switcher = storeSwitcher(api, (store) => switchTo(store));
    session = { token, scope: 'platform', store: '', api, platform: { ...platform, switcher } };
    storesLink.hidden = false;
    show(storeArea, switcher.element);
  } else {
    session = {
      token,
      scope: 'admin',
      store: current.store_id,
      api: adminApi(token, (error) => refused(token, error)),
    };
    show(storeArea, el('p', { class: 'store-name' }, 'Store ', el('strong', {}, current.store_id)));
    // A store's own token has no choice of store: a `?store=` from another session means nothing here.
    if (location.search) history.replaceState(null, '', `${location.pathname}${location.hash}`);
  }
  void route();
}

/**
 * A 401 or 403 ends the session with the API's reason, unless it is the platform token hearing that the store it
 * chose is disabled: that is the view's news, and the platform token can enable it again.
 */
function refused(token: string, error: ApiError): void {
  if (session?.token !== token) return;
  if (session.scope === 'platform' && error.code === 'store_disabled') return;
  signIn(error);
}

/** The platform token's choice of store, from the URL. */
function storeInUrl(): string {
  return new URLSearchParams(location.search).get('store') || DEFAULT_STORE_ID;
}

/**
 * Acts for `store` from now on, as a new history entry so that Back returns to the store before. `hash` is where
 * to go; by default the same section, without the item open in it (another store has other orders).
 */
function switchTo(store: string, hash?: string): void {
  const [section] = location.hash.slice(1).split('/');
  const to =
    hash ?? (section === 'stores' || section === 'new-store' ? location.hash : `#${section || 'invoices'}`);
  const search = store === DEFAULT_STORE_ID ? '' : `?store=${encodeURIComponent(store)}`;
  history.pushState(null, '', `${location.pathname}${search}${to}`);
  void route();
}

function memoryOf(store: string): Map<string, unknown> {
  let memory = memories.get(store);
  if (!memory) memories.set(store, (memory = new Map()));
  return memory;
}

async function route(): Promise<void> {
  if (!session) return;
  drawnUrl = location.href;
  if (session.platform) {
    const store = storeInUrl();
    if (store !== session.store) {
      session.store = store;
      session.api = adminApi(session.token, (error) => refused(session!.token, error), store);
      void session.platform.switcher.load(store);
    }
  }
  const [fragment, id, action] = location.hash.slice(1).split('/');
  const platformOnly = fragment === 'stores' || fragment === 'new-store';
  const section = fragment && (session.platform || !platformOnly) ? fragment : 'invoices';
  const current = section === 'new-store' ? 'stores' : section;
  for (const link of sections.querySelectorAll('a')) {
    if (link.hash === `#${current}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  // Each visit draws into a fresh element: a view still loading after the operator left draws nowhere.
  const view = el('div');
  show(root, view);
  const context: ViewContext = {
    api: session.api,
    store: session.store,
    feedback: feedback.within(view),
    root: view,
    memory: memoryOf(session.store),
  };
  feedback.clear();
  // Each view draws its heading before it loads anything: the focus moves there at once.
  const drawn = draw(context, section, id && decodeURIComponent(id), action);
  view.querySelector('h1')?.focus();
  await drawn;
}

function draw(context: ViewContext, section: string, id?: string, action?: string): Promise<void> {
  const platform = session?.platform;
  if (platform && section === 'stores' && id && action === 'edit')
    return editStoreView(context, platform, id);
  if (platform && section === 'stores' && id) return storeView(context, platform, id);
  if (platform && section === 'stores') return storesView(context, platform);
  if (platform && section === 'new-store') return newStoreView(context, platform);
  if (section === 'invoices' && id) return invoiceView(context, id);
  return (SECTIONS[section] ?? invoicesView)(context);
}

const SECTIONS: Record<string, (context: ViewContext) => Promise<void>> = {
  invoices: invoicesView,
  balances: balancesView,
  webhooks: webhooksView,
};

const routeIfMoved = () => {
  if (location.href !== drawnUrl) void route();
};

signOutButton.addEventListener('click', () => signIn());
window.addEventListener('hashchange', routeIfMoved);
// Back and Forward across a change of store, which moves the query, not only the fragment.
window.addEventListener('popstate', routeIfMoved);
// A failure the views did not expect still reaches the operator as text.
window.addEventListener('unhandledrejection', (event) => feedback.fail(event.reason));
signIn();
