import { NotConfiguredError } from '../domain/errors';

/** A JSON secret's fields; errors name the secret and the field, never a value. */
export interface SecretField {
  (field: string): string | undefined;
  (field: string, required: 'required'): string;
}

/**
 * Reads a JSON secret. A secret with no value yet is an operator's step still to do (503); a malformed one is a
 * fault. A field is a non-empty string, or absent.
 */
export function secretFields(what: string, text: string | undefined): SecretField {
  if (text === undefined) throw new NotConfiguredError(`The ${what} have not been put into their secret yet`);
  let raw: Record<string, unknown> | null;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error(`The ${what} secret is not valid JSON`);
  }
  return ((field: string, required?: 'required') => {
    const value = raw?.[field] ?? undefined;
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'string' || value === '') throw new Error(`The ${what} secret has no "${field}"`);
    return value;
  }) as SecretField;
}
