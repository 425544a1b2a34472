/**
 * `npm run fuzz`: every decoder's fuzz target at 10^6 mutated inputs (the mocha suites run the same targets at their
 * CI counts). Prints, per target, the inputs, accepted, own-error rejections, foreign exceptions and broken invariants
 * (the first few hex-dumped, with the command that replays them), the slowest input, inputs over the hang limit and
 * inputs/s. Exits 1 when anything failed or hung.
 *
 *   node dist/bench/fuzz.js [--count N] [--target NAME[,NAME…]] [--seed S] [--hang-ms MS] [--list]
 */
import { formatReport, runFuzz } from '../test/support/fuzz/runner';
import { FUZZ_TARGETS } from '../test/support/fuzz/targets';

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
}

function main(): number {
  if (process.argv.includes('--list')) {
    for (const t of FUZZ_TARGETS) console.log(`${t.name.padEnd(14)} ${t.about}`);
    return 0;
  }
  const count = Number(option('count') ?? 1_000_000);
  const seed = Number(option('seed') ?? (Date.now() % 0x7fffffff));
  const hangMs = Number(option('hang-ms') ?? 1000);
  const names = option('target')?.split(',');
  const unknown = names?.filter((n) => !FUZZ_TARGETS.some((t) => t.name === n)) ?? [];
  if (!Number.isSafeInteger(count) || count < 1 || !Number.isSafeInteger(seed) || unknown.length > 0) {
    console.error(`usage: fuzz [--count N] [--target ${FUZZ_TARGETS.map((t) => t.name).join('|')}] [--seed S] [--hang-ms MS]`);
    return 2;
  }
  const targets = FUZZ_TARGETS.filter((t) => names === undefined || names.includes(t.name));
  console.log(`fuzz: ${targets.length} target(s), ${count} inputs each, seed ${seed}, hang limit ${hangMs} ms, Node ${process.version}`);
  let failed = 0;
  for (const target of targets) {
    const report = runFuzz(target, { count, seed, hangMs });
    console.log(formatReport(report));
    failed += report.foreign + report.invariant + report.hangs;
  }
  console.log(failed === 0 ? 'fuzz: no foreign exception, broken invariant or hang' : `fuzz: ${failed} failure(s)`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = main();
