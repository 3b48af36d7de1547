// A client's idle keep-alive connection outlives node's default 5 s on the sandbox, as on a service behind a load
// balancer: reusing it must not meet a server that is just dropping it ("socket hang up", seen in the bench).
import { connect } from 'node:net';
import { startSandbox } from '../../sandbox/server';

test('an idle keep-alive connection stays open past 8 s', async () => {
  const sandbox = await startSandbox();
  const socket = connect(sandbox.port, '127.0.0.1');
  try {
    let closedByServer = false;
    socket.on('close', () => (closedByServer = true));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET /_sandbox/balances HTTP/1.1\r\nHost: sandbox\r\nConnection: keep-alive\r\n\r\n');
    await new Promise((resolve) => socket.once('data', resolve));
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    expect(closedByServer).toBe(false);
  } finally {
    socket.destroy();
    await sandbox.close();
  }
});
