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
 * Validates a JSON body or a query string against its schema, collecting every failure, so that one 400 names
 * all the fields at fault, each with the first rule it breaks. A null field counts as absent, as an undefined one does. Fields the schema
 * does not know are refused too, since a typo must not pass silently; this is checked here rather than by
 * valibot, which stops at the first unknown key and passes over keys such as `__proto__` and `constructor`.
 */
export function readFields<S extends FieldsSchema>(
  schema: S,
  source: unknown,
  what = 'body',
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
    else if (value !== null && value !== undefined) known[name] = value;
  }
  if (unknown.length === 0 && Object.keys(errors).length === 0) {
    const passed = compiledOf(schema)?.(known);
    if (passed !== undefined) return passed as v.InferOutput<S>;
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

/** A field's value through its schema's steps, or FAILED at the first one it does not pass. */
type Step = (value: unknown) => unknown;
type Compiled = (known: Record<string, unknown>) => Record<string, unknown> | undefined;

const FAILED = Symbol('failed');
const compiled = new WeakMap<object, Compiled | null>();

/**
 * The schema's fields as plain steps, for the body that passes them all: what valibot's output would be, or
 * undefined at the first step failed, and then valibot reads the body and names every fault. Valibot's own run
 * walks each pipe's actions as objects: on code a wait has left cold, it costs a checkout about 25 µs more.
 * Undefined for a schema with a part this does not know (an action of another kind, a pipe around an optional
 * field, a default made by a function), or with rules across its fields (a pipe on the object): valibot runs it.
 */
export function compiledOf(schema: FieldsSchema): Compiled | undefined {
  let found = compiled.get(schema);
  if (found === undefined) {
    found = compile(schema);
    compiled.set(schema, found);
  }
  return found ?? undefined;
}

interface CompiledField {
  key: string;
  optional: boolean;
  fallback: unknown;
  steps: Step[];
}

function compile(schema: FieldsSchema): Compiled | null {
  if ('pipe' in schema) return null;
  const fields: CompiledField[] = [];
  for (const [key, entry] of Object.entries(schema.entries)) {
    // A pipe around an optional field (`v.pipe(v.optional(x), ...)`) is read by valibot.
    if ('pipe' in entry && entry.type === 'optional') return null;
    const optional = entry.type === 'optional';
    const wrapped = optional ? (entry as v.OptionalSchema<v.GenericSchema, unknown>) : undefined;
    const fallback = wrapped?.default;
    const steps = stepsOf(wrapped ? wrapped.wrapped : entry);
    if (!steps || typeof fallback === 'function') return null;
    fields.push({ key, optional, fallback, steps });
  }
  return (given) => {
    const output: Record<string, unknown> = {};
    for (const { key, optional, fallback, steps } of fields) {
      let value = given[key];
      if (value === undefined) {
        if (!optional) return undefined;
        if (fallback === undefined) continue;
        value = fallback;
      }
      for (const step of steps) {
        value = step(value);
        if (value === FAILED) return undefined;
      }
      output[key] = value;
    }
    return output;
  };
}

type Item = { kind: string; type: string; pipe?: Item[]; '~run'?: unknown } & Record<string, unknown>;
const CONFIG = v.getGlobalConfig();

/** A schema's own steps and its pipe's, in order; undefined for a kind of part not known here. */
function stepsOf(schema: object): Step[] | undefined {
  const steps: Step[] = [];
  const items = (schema as Item).pipe ?? [schema as Item];
  for (const item of items) {
    if (item !== schema && item.pipe) {
      const inner = stepsOf(item);
      if (!inner) return undefined;
      steps.push(...inner);
      continue;
    }
    const step = stepOf(item);
    if (step === undefined) return undefined;
    if (step !== null) steps.push(step);
  }
  return steps;
}

/** Null for a part that only describes. */
function stepOf(item: Item): Step | null | undefined {
  if (item.kind === 'metadata') return null;
  switch (item.type) {
    case 'unknown':
      return null;
    case 'string':
      return (value) => (typeof value === 'string' ? value : FAILED);
    case 'check': {
      const holds = item.requirement as (value: unknown) => boolean;
      return (value) => (holds(value) ? value : FAILED);
    }
    case 'regex': {
      const pattern = item.requirement as RegExp;
      return (value) => (pattern.test(value as string) ? value : FAILED);
    }
    case 'transform': {
      const operation = item.operation as (value: unknown) => unknown;
      return (value) => operation(value);
    }
    case 'raw_check':
    case 'raw_transform': {
      const run = item['~run'] as (dataset: object, config: object) => { issues?: unknown; value: unknown };
      return (value) => {
        const dataset = run.call(item, { typed: true, value }, CONFIG);
        return dataset.issues ? FAILED : dataset.value;
      };
    }
    default:
      return undefined;
  }
}
