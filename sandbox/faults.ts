import { isPlainObject } from './json';
import { pathMatches } from './http';

export type FaultKind = '5xx' | 'delay' | 'hang' | 'reset_after_commit' | '403';

export interface Fault {
  id: number;
  path: string;
  method: string | null;
  kind: FaultKind;
  status: number;
  delayMs: number;
  code: string;
  /** Matching requests it still applies to; null for unlimited. */
  remaining: number | null;
}

const KINDS: readonly FaultKind[] = ['5xx', 'delay', 'hang', 'reset_after_commit', '403'];

/** Injected failures for /v2 requests, matched by path (exact or `prefix*`) and optionally method. */
export class FaultTable {
  private faults: Fault[] = [];
  private nextId = 1;

  /** Adds a fault from a control request body; answers an error text when the body is not a valid fault. */
  add(body: unknown): Fault | string {
    if (!isPlainObject(body)) return 'The body must be a JSON object.';
    const {
      path,
      method,
      kind,
      status = 503,
      delay_ms: delayMs = 2000,
      code = 'bad_header_signature',
    } = body;
    const times = body.times ?? null;
    if (typeof path !== 'string' || !path.startsWith('/')) {
      return 'path must be a path such as /v2/invoices/create.';
    }
    if (method !== undefined && typeof method !== 'string') return 'method must be a string.';
    if (!KINDS.includes(kind as FaultKind)) return `kind must be one of ${KINDS.join(', ')}.`;
    const statusNumber = Number(status);
    if (kind === '5xx' && !(Number.isInteger(statusNumber) && statusNumber >= 500 && statusNumber <= 599)) {
      return 'status must be an integer from 500 to 599.';
    }
    const delay = Number(delayMs);
    if (!Number.isInteger(delay) || delay < 0) return 'delay_ms must be a non-negative integer.';
    if (typeof code !== 'string') return 'code must be a string.';
    const count = times === null ? null : Number(times);
    if (count !== null && !(Number.isInteger(count) && count > 0)) return 'times must be a positive integer.';
    const fault: Fault = {
      id: this.nextId++,
      path,
      method: method === undefined ? null : method.toUpperCase(),
      kind: kind as FaultKind,
      status: statusNumber,
      delayMs: delay,
      code,
      remaining: count,
    };
    this.faults.push(fault);
    return fault;
  }

  /**
   * The first fault that applies to this request, counting the use. A fault whose path has a query (`?id=7`)
   * matches only requests with that query, so that one record's lookups fail while others' do not.
   */
  take(method: string, path: string, search = ''): Fault | undefined {
    const fault = this.faults.find(
      (candidate) =>
        pathMatches(candidate.path, candidate.path.includes('?') ? `${path}${search}` : path) &&
        (candidate.method === null || candidate.method === method),
    );
    if (fault?.remaining != null && --fault.remaining === 0) {
      this.faults = this.faults.filter((f) => f !== fault);
    }
    return fault;
  }

  clear(): void {
    this.faults = [];
  }
}
