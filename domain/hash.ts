import { hash } from 'node:crypto';

/** A stable digest of a request, so that a retry can be told apart from a different request. */
export function requestHash(request: object): string {
  const entries = Object.entries(request)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return hash('sha256', JSON.stringify(entries), 'hex');
}
