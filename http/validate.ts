import * as v from 'valibot';
import { InvalidRequestError } from './errors';

/** `.` and `..` are path segments a URL resolves away: /invoices/../cancel is /cancel, and the order is unreachable. */
export const FOREIGN_ID = /^(?!\.\.?$)[A-Za-z0-9._:-]{1,64}$/;
export const FOREIGN_ID_MESSAGE =
  'must be 1 to 64 letters, digits, ".", "_", ":" or "-", and not "." or ".."';

export type FieldsSchema = v.StrictObjectSchema<v.ObjectEntries, typeof IS_REQUIRED>;

const IS_REQUIRED = 'is required';

/**
 * The fields of a body or a query string. readFields hands it a plain object of known fields only, so a field
 * missing is the only issue the object itself can raise.
 */
export function fields<E extends v.ObjectEntries>(entries: E) {
  return v.strictObject(entries, IS_REQUIRED);
}

/**
 * Validates a JSON body or a query string against its schema and collects every failure, so that one 400 names all
 * the fields at fault; a null counts as absent unless its field is in `nullRefused`. Unknown fields are refused, so
 * that a typo never passes silently, here rather than by valibot, which passes over `__proto__` and `constructor`.
 */
export function readFields<S extends FieldsSchema>(
  schema: S,
  source: unknown,
  what = 'body',
  nullRefused: readonly string[] = [],
): v.InferOutput<S> {
  // No prototype: a field named like `__proto__` or `constructor` must be an ordinary key here.
  const errors: Record<string, string> = Object.create(null);
  let given: Record<string, unknown> = {};
  if (isPlainObject(source)) given = source;
  else if (source !== undefined || what === 'body') errors[what] = 'must be a JSON object';

  const known: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [name, value] of Object.entries(given)) {
    if (!Object.hasOwn(schema.entries, name)) unknown.push(name);
    else if (value !== undefined && (value !== null || nullRefused.includes(name))) known[name] = value;
  }
  const result = v.safeParse(schema, known);
  // A field's own parts are named after it, as `metadata.<key>`.
  for (const issue of result.issues ?? [])
    errors[(issue.path ?? []).map(({ key }) => String(key)).join('.')] ??= issue.message;
  for (const name of unknown) errors[name] = 'is not a known field';
  if (!result.success || Object.keys(errors).length > 0) throw new InvalidRequestError(errors);
  return result.output;
}

/** JSON objects only: lossless-json wraps a bare top-level number in an object of its own class. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
