import type { ListPage } from '../domain/lists';
import type { ListPosition } from '../domain/ports';
import { renderedViews } from './render-guard';

/** Where a list stopped: a time (ms) and, in lists of records, the foreign_id that breaks ties. */
export interface CursorPosition {
  at: number;
  foreignId?: string;
}

/** Within JavaScript's dates; a cursor is only ever made from a stored time. */
const MAX_TIME = 8.64e15;
const BASE64URL = /^[A-Za-z0-9_-]{1,300}$/;

/** Opaque to the client: base64url of a JSON tuple, so that nothing in it can be read as a separator. */
export function encodeCursor({ at, foreignId }: CursorPosition): string {
  const tuple = foreignId === undefined ? [at] : [at, foreignId];
  return Buffer.from(JSON.stringify(tuple)).toString('base64url');
}

/**
 * The position a cursor holds, or undefined when it is not in the form this list gives out (it is not signed).
 * `foreignId` checks the foreign_id of a list of records; a list without one (balance history) takes none.
 */
export function decodeCursor(
  text: string,
  foreignId?: (value: string) => boolean,
): CursorPosition | undefined {
  if (!BASE64URL.test(text)) return undefined;
  let tuple: unknown;
  try {
    tuple = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(tuple) || tuple.length !== (foreignId ? 2 : 1)) return undefined;
  const [at, id] = tuple as unknown[];
  if (!Number.isSafeInteger(at) || (at as number) < 0 || (at as number) > MAX_TIME) return undefined;
  if (!foreignId) return { at: at as number };
  return typeof id === 'string' && foreignId(id) ? { at: at as number, foreignId: id } : undefined;
}

/**
 * Every list answers in this shape: the page, and the cursor of the next one, null after the last. A record no
 * view can render is left out of the page (counted), and the cursor still passes it.
 */
export function listBody<T, V>(records: readonly T[], view: (record: T) => V, next: CursorPosition | null) {
  return { data: renderedViews(records, view), next_cursor: next && encodeCursor(next) };
}

/** A page of records, with its next cursor holding the creation time and foreign_id it stopped at. */
export function recordListBody<T extends ListPosition, V>(page: ListPage<T>, view: (record: T) => V) {
  const { next } = page;
  return listBody(page.records, view, next && { at: next.createdAt, foreignId: next.foreignId });
}
