/** A request in one form whatever the order of its keys, so that a retry can be told apart from another request. */
export function canonicalRequest(request: object): string {
  const entries = Object.entries(request)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify(entries);
}

/** Whether `given` is the request a record holds, whatever the order of its keys. */
export function isSameRequest(record: { request: object }, given: object): boolean {
  return canonicalRequest(record.request) === canonicalRequest(given);
}
