/**
 * The gateway as a child process for the SIGKILL test: the real `runGateway` (config file, signals, logger) with one
 * simulated radio whose virtual peer `src` is driven by the parent over IPC. The parent sends frames for `src` to
 * transmit; every ACK `src` receives from the gateway goes back to the parent. The parent plays the sending phone:
 * it keeps its own outbox and resends whatever was not ACKed, across every kill.
 */
import { ackTarget, isAck } from '../../../lib/mesh/ack';
import { runGateway } from '../../../gateway/main';
import type { SimulatedRadio } from '../../../gateway/radios';

type FromParent = { type: 'frames'; frames: string[] };

const configFile = process.argv[2];
if (!configFile || !process.send) throw new Error('usage: kill-child <config.yaml> (with an IPC channel)');

void runGateway({
  configFile,
  env: {},
  stderr: process.stderr,
  onStarted: (gateway) => {
    const radio = gateway.radios[0] as SimulatedRadio;
    const src = radio.virtualPeer('src')!;
    let acks: string[] = [];
    src.on('received', (r) => {
      if (!r.message || !isAck(r.message)) return;
      if (acks.length === 0) setImmediate(() => {
        process.send!({ type: 'acks', ids: acks });
        acks = [];
      });
      acks.push(ackTarget(r.message)!);
    });
    process.on('message', (m: FromParent) => {
      if (m.type !== 'frames') return;
      for (const f of m.frames) src.inject(Buffer.from(f, 'base64')).catch(() => undefined);
    });
    process.send!({ type: 'ready', address: gateway.info.address });
  },
}).then((code) => process.exit(code));
