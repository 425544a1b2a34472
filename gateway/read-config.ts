/**
 * The gateway's configuration as `--check` and the running gateway read it: the file, the `CLAWLING_*` overrides and
 * the sections of the extensions of this build. `read-apart.ts` runs it in a short-lived process of its own for the
 * running gateway; `--check` and `--print-config` call it directly.
 */
import { loadConfig, type LoadedConfig } from './load-config';
import { loadExtensionSections } from './extensions/index';

export async function readGatewayConfig(file: string | undefined, env: NodeJS.ProcessEnv): Promise<LoadedConfig> {
  return loadConfig({ ...(file !== undefined ? { file } : {}), env, ...(await loadExtensionSections()) });
}
