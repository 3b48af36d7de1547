// The travel rule (MiCA): who receives a refund goes with its withdrawal, and who pays an invoice with its create,
// as the store's settings ask.
import { InvalidFieldsError } from './errors';
import type { Receiver, Sender } from './model';
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

/**
 * Refuses, before anything is written, a payer the store's `travel_rule_sender` does not allow, or its absence: `off`
 * refuses one, so that data the store said it does not send is never taken and silently dropped.
 */
export function checkSender(rule: TravelRule, sender: Sender | undefined): void {
  if (rule === 'required' && sender === undefined) {
    throw new InvalidFieldsError({ sender: "is required: this store's travel_rule_sender is required" });
  }
  if (rule === 'off' && sender !== undefined) {
    throw new InvalidFieldsError({ sender: "is not taken: this store's travel_rule_sender is off" });
  }
}
