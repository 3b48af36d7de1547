/** One JSON line per event. Field names that could carry credentials are dropped, whatever the caller passes. */
const SENSITIVE = /token|secret|password|authorization|signature|api_?key|processing_key/i;

export type Fields = Record<string, unknown>;

function redact(fields: Fields): Fields {
  return Object.fromEntries(Object.entries(fields).filter(([name]) => !SENSITIVE.test(name)));
}

function write(level: 'info' | 'warn' | 'error', message: string, fields: Fields): void {
  const line = JSON.stringify({ level, message, time: new Date().toISOString(), ...redact(fields) });
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
