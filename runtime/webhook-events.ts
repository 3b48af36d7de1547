/**
 * Whether a record's changes make webhook events: only when the stack has an endpoint to send them to
 * (WEBHOOK_EVENTS=on, set with the endpoint). Without one, records carry no outbox and stay their size.
 */
export const announceEvents = process.env.WEBHOOK_EVENTS === 'on';

/** Whether a webhook may go to http://127.0.0.1 (the local stack); every other endpoint must be https. */
export const allowLoopbackHttp = (): boolean => process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP === 'true';
