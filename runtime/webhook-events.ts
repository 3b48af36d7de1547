/**
 * Whether a record's changes make webhook events: only when the stack has an endpoint to send them to
 * (WEBHOOK_EVENTS=on, set with the endpoint). Without one, records carry no outbox and stay their size.
 */
export const announceEvents = process.env.WEBHOOK_EVENTS === 'on';
