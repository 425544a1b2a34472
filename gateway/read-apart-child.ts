/**
 * The process `read-apart.ts` forks: reads the configuration it is sent and answers with the result or the error's
 * code, message and details, then exits, taking `yaml`, Ajv and the compiled schemas with it.
 */
import { readGatewayConfig } from './read-config';

interface Ask {
  file?: string;
  env: NodeJS.ProcessEnv;
}

process.once('message', (ask: Ask) => {
  const done = (answer: unknown): void => {
    process.send!(answer, () => process.exit(0));
  };
  readGatewayConfig(ask.file, ask.env).then(
    (loaded) => done({ ok: true, loaded }),
    (err: unknown) => {
      const e = err as { code?: unknown; message?: unknown; details?: unknown };
      done({ ok: false, error: { code: typeof e.code === 'string' ? e.code : undefined, message: String(e.message ?? err), details: e.details } });
    },
  );
});
