import { hash } from 'node:crypto';

/** A request in one form whatever the order of its keys, so that a retry can be told apart from another request. */
export function canonicalRequest(request: object): string {
  const entries = Object.entries(request)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify(entries);
}

/** Whether `given` is the request a record holds: by its digest in a record that kept one (earlier versions). */
export function isSameRequest(record: { request: object; requestHash?: string }, given: object): boolean {
  const canonical = canonicalRequest(given);
  return record.requestHash === undefined
    ? canonicalRequest(record.request) === canonical
    : record.requestHash === hash('sha256', canonical, 'hex');
}
