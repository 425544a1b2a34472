/**
 * The message of a radio whose optional package does not load at `open()`: what went wrong (not installed, built
 * for another Node.js, never built) and the command that fixes it, as `--check` words it (native-module.ts).
 */
import { describeNativeLoadFailure, installingFolder, projectFolder, remedyCommand } from './native-module';

export function packageHint(pkg: string, err: unknown): string {
  const failure = describeNativeLoadFailure(err, pkg);
  // Not a load failure of a recognised kind (e.g. the binding's own start-up refused): no command would fix it.
  if (failure.kind === 'other') return `the optional package ${pkg} is not usable here: ${failure.reason}`;
  const message = err instanceof Error ? err.message : String(err);
  const folder = (failure.kind === 'not-installed' ? undefined : installingFolder(message, failure.rebuildPackage)) ?? projectFolder(__dirname);
  const what = failure.kind === 'not-installed' ? 'is not installed' : `is not usable here: ${failure.reason}`;
  const verb = failure.kind === 'not-installed' ? 'install it with' : 'rebuild it with';
  return `the optional package ${pkg} ${what}; ${verb}: ${remedyCommand(failure, pkg, folder)}`;
}
