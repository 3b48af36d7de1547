import { NotConfiguredError } from '../domain/errors';

/**
 * Reads the string fields of a JSON secret. A secret with no value yet is an operator's step still to do; a
 * malformed one is a fault. Errors name the secret and the field, never a value.
 */
export function readSecretFields<K extends string>(
  what: string,
  text: string | undefined,
  fields: Record<K, string>,
): Record<K, string> {
  if (text === undefined) throw new NotConfiguredError(`The ${what} have not been put into their secret yet`);
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`The ${what} secret is not valid JSON`);
  }
  const values = {} as Record<K, string>;
  for (const [name, field] of Object.entries(fields) as Array<[K, string]>) {
    const value = raw?.[field];
    if (typeof value !== 'string' || value === '') throw new Error(`The ${what} secret has no "${field}"`);
    values[name] = value;
  }
  return values;
}
