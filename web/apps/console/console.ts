// The operator console: the operator pastes the admin token, which stays in this page's memory only (never
// storage, never a URL), and works on invoices and balances. Views follow the URL's fragment, so that links,
// Back and Forward work; a refused token brings the sign-in back with the API's reason.
import { el, show } from '../shared/dom';
import { adminApi, ApiError, type Api } from './parts/api';
import { balancesView } from './parts/balances';
import { invoiceView } from './parts/invoice';
import { invoicesView } from './parts/invoices';
import { webhooksView } from './parts/webhooks';
import { Feedback } from './parts/page';
import { heading, type ViewContext } from './parts/view';
// esbuild bundles uPlot's stylesheet (imported by the chart) and this one into console.css, the page's one
// stylesheet, which takes the place of this file as served.
import './console.css';

const byId = (id: string) => document.getElementById(id)!;
const root = byId('view');
const sections = byId('sections');
const signOutButton = byId('sign-out');
const feedback = new Feedback(byId('status'), byId('alert'));

let api: Api | undefined;

function signIn(refused?: ApiError): void {
  api = undefined;
  sections.hidden = true;
  signOutButton.hidden = true;
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
    el('label', { for: 'token' }, 'Admin token'),
    token,
    el(
      'p',
      { id: 'token-help', class: 'help' },
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
    const candidate = adminApi(token.value.trim(), (error) => {
      if (api === candidate) signIn(error);
    });
    const checked = await feedback.load(form, 'Checking the token…', () =>
      candidate.get('/invoices', { limit: '1' }),
    );
    submit.disabled = false;
    if (checked === undefined) {
      token.value = '';
      token.focus();
      return;
    }
    api = candidate;
    sections.hidden = false;
    signOutButton.hidden = false;
    void route();
  });
}

async function route(): Promise<void> {
  if (!api) return;
  const [fragment, id] = location.hash.slice(1).split('/');
  const section = fragment || 'invoices';
  for (const link of sections.querySelectorAll('a')) {
    if (link.hash === `#${section}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  // Each visit draws into a fresh element: a view still loading after the operator left draws nowhere.
  const view = el('div');
  show(root, view);
  const context: ViewContext = { api, feedback: feedback.within(view), root: view };
  feedback.clear();
  // Each view draws its heading before it loads anything: the focus moves there at once.
  const drawn =
    section === 'invoices' && id
      ? invoiceView(context, decodeURIComponent(id))
      : (SECTIONS[section] ?? invoicesView)(context);
  view.querySelector('h1')?.focus();
  await drawn;
}

const SECTIONS: Record<string, (context: ViewContext) => Promise<void>> = {
  invoices: invoicesView,
  balances: balancesView,
  webhooks: webhooksView,
};

signOutButton.addEventListener('click', () => signIn());
window.addEventListener('hashchange', () => void route());
// A failure the views did not expect still reaches the operator as text.
window.addEventListener('unhandledrejection', (event) => feedback.fail(event.reason));
signIn();
