// A stored record that no view can render (a time past JavaScript's dates, which the bounds on the service's times
// keep out of new records, but not out of items already stored) never breaks a list, an export, a webhook or the
// other records: each leaves it out or marks it, and counts it in the `UnrenderableRecords` metric with a log line
// naming it. Its own routes answer 500 `unrenderable_record`, counted the same way (http/route.ts).
import { log } from '../observability/log';
import { countMetric } from '../observability/metrics';
import { UnrenderableRecordError } from './errors';

/** How a log line names a record: an invoice's or refund's foreign_id, else a store's or a delivery's id. */
function nameOf(record: unknown): string | undefined {
  const { foreignId, id } = (record ?? {}) as { foreignId?: unknown; id?: unknown };
  const name = foreignId ?? id;
  return typeof name === 'string' ? name : undefined;
}

/** Counts and logs one record that could not be rendered where it was `left`: out of a list, marked, ... */
export function countUnrenderable(error: UnrenderableRecordError, record: unknown, left: string): void {
  countMetric('UnrenderableRecords');
  log.error('record cannot be rendered', { record: nameOf(record), field: error.field, left });
}

/** `view(record)`, or undefined (counted) when the record holds a time no view can write; other errors are thrown. */
export function renderedOrUndefined<T, V>(record: T, view: (record: T) => V, left: string): V | undefined {
  try {
    return view(record);
  } catch (error) {
    if (!(error instanceof UnrenderableRecordError)) throw error;
    countUnrenderable(error, record, left);
    return undefined;
  }
}

/** The views of the records that can be rendered, in order; the others are left out and counted. */
export function renderedViews<T, V>(records: readonly T[], view: (record: T) => V): V[] {
  const shown: V[] = [];
  for (const record of records) {
    const rendered = renderedOrUndefined(record, view, 'out of a list');
    if (rendered !== undefined) shown.push(rendered);
  }
  return shown;
}
