import { log } from '../observability/log';
import { countMetric } from '../observability/metrics';

/**
 * News the payment service gave for a record that is not the record's: a lookup answered with another foreign_id,
 * or a callback to an account the record was not made on. Counted and logged, never applied.
 */
export function newsMismatch(foreignId: string, reason: 'foreign_id' | 'account'): void {
  countMetric('NewsMismatch');
  log.warn("news from the payment service is not this record's; not applied", {
    foreign_id: foreignId,
    reason,
  });
}
