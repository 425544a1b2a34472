/** The demo's MQTT broker: aedes in this process on 127.0.0.1 (aedes is a development dependency, as the demo is). */
import net from 'node:net';
import { Aedes } from 'aedes';

export interface DemoBroker {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startDemoBroker(port: number): Promise<DemoBroker> {
  const aedes = await Aedes.createBroker();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    aedes.handle(socket);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  } catch (err) {
    await new Promise<void>((resolve) => aedes.close(() => resolve()));
    throw err;
  }
  const bound = (server.address() as net.AddressInfo).port;
  return {
    url: `mqtt://127.0.0.1:${bound}`,
    port: bound,
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
    },
  };
}
