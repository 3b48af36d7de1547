import { DEFAULT_STORE_ID, DEFAULT_TRAVEL_RULE, type StoreId, type TravelRule } from '../domain/stores';
import { accountOf } from './store-account';
import { storeRegistry } from './store-registry';

/** What a claim page shows of its store: its name (the default store has none of its own) and its travel rule. */
export async function storeForClaims(
  storeId: StoreId,
): Promise<{ name: string | null; travelRule: TravelRule }> {
  const [record, account] = await Promise.all([
    storeId === DEFAULT_STORE_ID ? undefined : storeRegistry.get(storeId),
    accountOf(storeId),
  ]);
  return { name: record?.name ?? null, travelRule: account.travelRule ?? DEFAULT_TRAVEL_RULE };
}
