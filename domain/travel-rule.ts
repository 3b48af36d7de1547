// The travel rule (MiCA): who receives a refund goes with its withdrawal, as the store's setting asks (issue 42).
import { InvalidFieldsError } from './errors';
import type { Receiver } from './model';
import type { TravelRule } from './stores';

/** Refuses, before anything is written, a receiver the store's setting does not allow, or its absence. */
export function checkReceiver(rule: TravelRule, receiver: Receiver | undefined): void {
  if (rule === 'required' && receiver === undefined) {
    throw new InvalidFieldsError({ receiver: "is required: this store's travel_rule is required" });
  }
  if (rule === 'off' && receiver !== undefined) {
    throw new InvalidFieldsError({ receiver: "is not taken: this store's travel_rule is off" });
  }
}
