/**
 * A free TCP port on 127.0.0.1. Node-RED prints its address from settings.uiPort, so with port 0 it would announce
 * ":0"; the suite asks the kernel for a port, releases it and hands the number over.
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
