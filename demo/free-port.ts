/**
 * A free TCP port on 127.0.0.1. Some servers (Node-RED among them) print their address from the configured port, so
 * with port 0 they would announce ":0"; we ask the kernel for a port, release it and hand the number over.
 */
import net from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}
