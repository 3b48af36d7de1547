// Exactly the DynamoDB actions each function needs: on the table, and on the `open-items` index where it queries it.
import type { FunctionName } from './routes';

export const OPEN_ITEMS_INDEX = 'open-items';

export interface DataAccess {
  table: readonly string[];
  openItemsIndex?: readonly string[];
}

export const dataAccess: Record<FunctionName, DataAccess> = {
  checkout: { table: ['GetItem', 'PutItem', 'UpdateItem'] },
  'get-invoice': { table: ['GetItem'] },
  'cancel-invoice': { table: ['GetItem', 'UpdateItem'] },
  rates: { table: [] },
  pairs: { table: [] },
  'lookup-transaction': { table: [] },
  'get-balances': { table: ['Query', 'PutItem'] },
  'balance-history': { table: ['Query'] },
  'create-refund': { table: ['GetItem', 'PutItem', 'UpdateItem'] },
  'get-refund': { table: ['GetItem', 'UpdateItem'] },
  callbacks: { table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
  'snapshot-balances': { table: ['PutItem'] },
  reconcile: { table: ['Query', 'GetItem', 'UpdateItem'], openItemsIndex: ['Query'] },
};
