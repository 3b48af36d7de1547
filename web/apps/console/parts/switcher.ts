// The platform token's store switcher in the header: the stores to act for, chosen with a button rather than on
// every arrow key, so that moving through the list does not reload the page under a keyboard user.
import { el, show } from '../../shared/dom';
import type { Api, Store, StoreList } from './api';

/** Enough for the header; a longer list is paged on the Stores page, and any store can be opened from there. */
const SWITCHER_LIMIT = 100;

export interface StoreSwitcher {
  element: HTMLFormElement;
  /** Reads the stores again (after one was made, renamed, disabled) and marks `current`. */
  load(current: string): Promise<void>;
}

/** `platformApi` lists the stores; `onSwitch` is given the chosen store's id. */
export function storeSwitcher(platformApi: Api, onSwitch: (storeId: string) => void): StoreSwitcher {
  const select = el('select', { id: 'store-switcher', name: 'store' });
  const form = el(
    'form',
    { class: 'switcher', 'aria-label': 'Store' },
    el('label', { for: 'store-switcher' }, 'Store'),
    select,
    el('button', { type: 'submit', class: 'button button-quiet button-small' }, 'Switch'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    onSwitch(select.value);
  });
  return {
    element: form,
    load: async (current) => {
      // The current store is always there, even before the list arrives or when it is past the list's end.
      if (select.value !== current) show(select, el('option', { value: current }, current));
      let list: StoreList;
      try {
        list = await platformApi.get<StoreList>('/stores', { limit: String(SWITCHER_LIMIT) });
      } catch {
        return; // The view shows the API's error; the switcher keeps the store it has.
      }
      const options = list.data.map((store) => el('option', { value: store.id }, storeLabel(store)));
      if (!list.data.some((store) => store.id === current))
        options.unshift(el('option', { value: current }, current));
      show(select, ...options);
      select.value = current;
    },
  };
}

/** "Shop name (id)", and whether it is disabled. */
export function storeLabel(store: Store): string {
  return `${store.name} (${store.id})${store.status === 'disabled' ? ', disabled' : ''}`;
}
