// The route table the deployed HTTP API and the local gateway both serve. Plain data: no CDK imports.

export type HttpMethod = 'GET' | 'POST';

export interface Route {
  method: HttpMethod;
  /** API Gateway path syntax: `{name}` is a path parameter. */
  path: string;
  /** The handler module is `functions/<name>.ts`, exporting `handler`. */
  name: string;
}

export const routes = [
  { method: 'POST', path: '/checkout', name: 'checkout' },
  { method: 'GET', path: '/invoices/{foreign_id}', name: 'get-invoice' },
  { method: 'POST', path: '/invoices/{foreign_id}/cancel', name: 'cancel-invoice' },
  { method: 'GET', path: '/rates', name: 'rates' },
  { method: 'GET', path: '/pairs', name: 'pairs' },
  { method: 'GET', path: '/balances', name: 'get-balances' },
  { method: 'GET', path: '/balances/history', name: 'balance-history' },
  { method: 'POST', path: '/refunds', name: 'create-refund' },
  { method: 'GET', path: '/refunds/{foreign_id}', name: 'get-refund' },
  { method: 'GET', path: '/transactions', name: 'lookup-transaction' },
  { method: 'POST', path: '/callbacks', name: 'callbacks' },
] as const satisfies readonly Route[];

/**
 * An API function's timeout (Lambda's, in the stack and in the local gateway): under the HTTP API's 30 s
 * integration limit. Every call to the service budgets itself from what is left of it (runtime/deadline.ts).
 */
export const API_FUNCTION_TIMEOUT_SECONDS = 25;

/** A scheduled job's timeout: jobs walk many records, and the sweep stops taking new ones as its time runs low. */
export const JOB_FUNCTION_TIMEOUT_SECONDS = 120;

/** Functions run on a schedule, with no route. */
export const scheduledJobs = ['snapshot-balances', 'reconcile'] as const;

export type RouteFunctionName = (typeof routes)[number]['name'];
export type ScheduledJobName = (typeof scheduledJobs)[number];
export type FunctionName = RouteFunctionName | ScheduledJobName;
