/** Errors the domain raises on purpose; the HTTP layer maps each to a status. */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class NotFoundError extends DomainError {
  constructor(what: string) {
    super('not_found', `${what} was not found`);
  }
}

/** The request disagrees with what the store already holds, or the record's state does not allow it. */
export class ConflictError extends DomainError {}

/** Another request is working on the same foreign_id right now; retrying shortly will converge. */
export class InProgressError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('in_progress', 'Another request for this foreign_id is in progress; retry shortly');
  }
}

/** The record is mid-change (its create has not been recorded yet); the sender should retry later. */
export class NotReadyError extends DomainError {
  constructor(what: string) {
    super('not_ready', `${what} is not ready yet; retry later`);
  }
}

/** The deployment is missing configuration an operator must provide. */
export class NotConfiguredError extends DomainError {
  constructor(message: string) {
    super('not_configured', message);
  }
}
