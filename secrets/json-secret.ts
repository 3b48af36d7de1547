import { NotConfiguredError } from '../domain/errors';

/**
 * A JSON secret's fields. A secret with no value yet is an operator's step still to do; a malformed one is a fault.
 * Errors name the secret and the field, never a value.
 */
export class SecretFields {
  private readonly raw: Record<string, unknown>;

  constructor(
    private readonly what: string,
    text: string | undefined,
  ) {
    if (text === undefined)
      throw new NotConfiguredError(`The ${what} have not been put into their secret yet`);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new Error(`The ${what} secret is not valid JSON`);
    }
    this.raw = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  }

  required(field: string): string {
    const value = this.optional(field);
    if (value === undefined) throw new Error(`The ${this.what} secret has no "${field}"`);
    return value;
  }

  optional(field: string): string | undefined {
    const value = this.raw[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || value === '')
      throw new Error(`The ${this.what} secret has no "${field}"`);
    return value;
  }

  /** An ISO 8601 time, as epoch milliseconds. */
  optionalTime(field: string): number | undefined {
    const value = this.optional(field);
    if (value === undefined) return undefined;
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) throw new Error(`The ${this.what} secret's "${field}" is not an ISO 8601 time`);
    return ms;
  }
}
