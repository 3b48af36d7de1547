import type { Socket } from 'node:net';
import { pathMatches } from './http';

export interface LoggedRequest {
  method: string;
  /** Without the query string. */
  path: string;
  /** Null while unanswered, and for requests a `hang` fault never answers. */
  status: number | null;
  at: number;
  /** The raw body text. */
  body: string;
  /** The injected fault that shaped this request, if any. */
  fault?: string;
}

/** The /v2 request log and the connection counters behind the control API's requests and stats. */
export class Traffic {
  private entries: LoggedRequest[] = [];
  private connections = 0;
  private requests = 0;
  private apiSockets = new WeakSet<Socket>();
  private apiConnections = 0;

  connectionOpened(): void {
    this.connections++;
  }

  record(socket: Socket, entry: LoggedRequest): LoggedRequest {
    this.requests++;
    if (!this.apiSockets.has(socket)) {
      this.apiSockets.add(socket);
      this.apiConnections++;
    }
    this.entries.push(entry);
    return entry;
  }

  list(pathFilter: string | null): LoggedRequest[] {
    return pathFilter === null
      ? this.entries
      : this.entries.filter((entry) => pathMatches(pathFilter, entry.path));
  }

  /** `api_connections` counts only the connections that carried a /v2 request. */
  stats() {
    return { connections: this.connections, requests: this.requests, api_connections: this.apiConnections };
  }

  reset(): void {
    this.entries = [];
    this.connections = 0;
    this.requests = 0;
    this.apiSockets = new WeakSet();
    this.apiConnections = 0;
  }
}
