import { isLosslessNumber } from 'lossless-json';
import { ProcessingValidationError } from '../processing/errors';
import { toAmount8 } from '../processing/money';
import { InvalidRequestError } from './errors';

interface StringRule {
  required?: boolean;
  /** Tabs and line breaks are allowed (in prose such as a description); other control characters never are. */
  lineBreaks?: boolean;
  min?: number;
  max?: number;
  pattern?: RegExp;
  patternMessage?: string;
}

/** `.` and `..` are path segments a URL resolves away: /invoices/../cancel is /cancel, and the order is unreachable. */
export const FOREIGN_ID = /^(?!\.\.?$)[A-Za-z0-9._:-]{1,64}$/;
export const FOREIGN_ID_MESSAGE =
  'must be 1 to 64 letters, digits, ".", "_", ":" or "-", and not "." or ".."';
export const CURRENCY = /^[A-Z0-9]{2,10}$/;
export const CURRENCY_MESSAGE = 'must be an upper-case currency code such as "BTC"';
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Control characters hide or rewrite what a person reads, here and in logs; a lone surrogate is not text at all. */
const CONTROL = /[\p{Cc}\p{Cs}]/u;
const CONTROL_BUT_LINE_BREAKS = /[^\P{Cc}\t\n\r]|\p{Cs}/u;

/**
 * Reads fields from a JSON object or a query string, collecting every failure, so that one 400 names all the
 * fields at fault. Fields the route does not know are refused too, since a typo must not pass silently.
 */
export class FieldReader {
  // No prototype: a field named like `__proto__` or `constructor` must be an ordinary key here.
  private readonly errors: Record<string, string> = Object.create(null);
  private readonly known = new Set<string>();
  private readonly source: Record<string, unknown>;

  constructor(source: unknown, what = 'body') {
    if (isPlainObject(source)) {
      this.source = source as Record<string, unknown>;
    } else {
      this.source = {};
      if (source !== undefined || what === 'body') this.errors[what] = 'must be a JSON object';
    }
  }

  string(name: string, rule: StringRule = {}): string | undefined {
    const value = this.take(name, rule.required);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') return this.fail(name, 'must be a string');
    if (rule.required && value.trim() === '') return this.fail(name, 'must not be empty');
    const length = [...value].length;
    if (rule.min !== undefined && length < rule.min)
      return this.fail(name, `must be at least ${rule.min} characters`);
    if (rule.max !== undefined && length > rule.max)
      return this.fail(name, `must be at most ${rule.max} characters`);
    if ((rule.lineBreaks ? CONTROL_BUT_LINE_BREAKS : CONTROL).test(value))
      return this.fail(name, 'must not contain control characters or lone surrogates');
    if (rule.pattern && !rule.pattern.test(value))
      return this.fail(name, rule.patternMessage ?? 'has the wrong format');
    return value;
  }

  currency(name: string, required = true): string | undefined {
    return this.string(name, { required, pattern: CURRENCY, patternMessage: CURRENCY_MESSAGE });
  }

  email(name: string): string | undefined {
    return this.string(name, {
      required: true,
      max: 254,
      pattern: EMAIL,
      patternMessage: 'must be an e-mail address',
    });
  }

  url(name: string): string | undefined {
    const value = this.string(name, { required: true, max: 2048 });
    if (value === undefined) return undefined;
    try {
      const url = new URL(value);
      if (url.protocol === 'https:' || url.protocol === 'http:') return value;
    } catch {
      // reported below
    }
    return this.fail(name, 'must be an absolute http(s) URL');
  }

  boolean(name: string, fallback?: boolean): boolean | undefined {
    const value = this.take(name, fallback === undefined);
    if (value === undefined) return fallback;
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    return this.fail(name, 'must be true or false');
  }

  /** A positive decimal, as a string or an exact JSON number, normalised to 8 fractional digits. */
  amount(name: string): string | undefined {
    const value = this.take(name, true);
    if (value === undefined) return undefined;
    try {
      return toAmount8(isLosslessNumber(value) ? value.toString() : value, name);
    } catch (error) {
      if (error instanceof ProcessingValidationError) return this.fail(name, error.fields[name]);
      throw error;
    }
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value))
      return this.fail(name, `must be one of ${allowed.join(', ')}`);
    return value as T;
  }

  /** A non-negative integer, from JSON or a query string. */
  integer(name: string, required = false): number | undefined {
    const value = this.take(name, required);
    if (value === undefined) return undefined;
    const text = isLosslessNumber(value) ? value.toString() : value;
    if (typeof text !== 'string' || !/^\d{1,15}$/.test(text))
      return this.fail(name, 'must be a whole number');
    return Number(text);
  }

  reject(name: string, message: string): void {
    this.errors[name] = message;
  }

  /** Throws one InvalidRequestError naming every failed or unknown field. */
  done(): void {
    for (const name of Object.keys(this.source)) {
      if (!this.known.has(name) && !Object.hasOwn(this.errors, name))
        this.errors[name] = 'is not a known field';
    }
    if (Object.keys(this.errors).length > 0) throw new InvalidRequestError(this.errors);
  }

  private take(name: string, required = false): unknown {
    this.known.add(name);
    const value = this.source[name];
    if (value === undefined || value === null) {
      if (required) this.errors[name] = 'is required';
      return undefined;
    }
    return value;
  }

  private fail(name: string, message: string): undefined {
    this.errors[name] = message;
    return undefined;
  }
}

/** JSON objects only: lossless-json wraps a bare top-level number in an object of its own class. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
