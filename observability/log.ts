import { currentContext } from './context';

/**
 * One JSON line per event, with the invocation's context first. Fields whose names could carry credentials are
 * dropped at any depth, whatever the caller passes.
 */
const SENSITIVE = /token|secret|password|authorization|signature|api[-_]?key|processing[-_]?key/i;

export type Fields = Record<string, unknown>;

/** Adds to the current invocation's context once a field is known, such as a validated foreign_id. */
export function addLogContext(fields: Fields): void {
  Object.assign(currentContext()?.fields ?? {}, fields);
}

// The replacer sees every key of every nested object, so redaction costs no walk of its own.
const redact = (name: string, value: unknown) => (SENSITIVE.test(name) ? undefined : value);

function write(level: 'info' | 'warn' | 'error', message: string, fields: Fields): void {
  const line = JSON.stringify(
    { level, message, time: new Date().toISOString(), ...currentContext()?.fields, ...fields },
    redact,
  );
  if (level === 'error') console.error(line);
  else console.log(line);
}

export const log = {
  info: (message: string, fields: Fields = {}) => write('info', message, fields),
  warn: (message: string, fields: Fields = {}) => write('warn', message, fields),
  error: (message: string, fields: Fields = {}) => write('error', message, fields),
};

/** What of an error may be logged: its kind and code, never a request body or header. */
export function describeError(error: unknown): Fields {
  if (!(error instanceof Error)) return { errorType: typeof error };
  const { status, code } = error as { status?: unknown; code?: unknown };
  return { errorType: error.name, errorMessage: error.message, status, code };
}
