import { createServer, type Socket } from 'node:net';

export interface SilentEndpoint {
  url: string;
  close(): Promise<void>;
}

/** A loopback endpoint that accepts connections, reads what is sent and never answers: a hung AWS service. */
export async function startSilentEndpoint(): Promise<SilentEndpoint> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket.on('close', () => sockets.delete(socket)).on('error', () => undefined));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
