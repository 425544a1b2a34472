/** Every fuzz target, in the order `npm run fuzz` runs them. */
import type { FuzzTarget } from '../runner';
import { addressesTarget } from './addresses';
import { applyCommitTarget } from './apply-commit';
import { bleFragmentsTarget } from './ble-fragments';
import { controlGateTarget } from './control-gate';
import { fileChunksTarget } from './file-chunks';
import { hubFramesTarget } from './hub-frames';
import { frameBinaryTarget, frameJsonTarget } from './mesh-frames';
import { serialFramesTarget } from './serial-frames';

/** A session only ever feeds back the inputs it generated, so the input type can be forgotten in a list. */
function erased<I>(target: FuzzTarget<I>): FuzzTarget<unknown> {
  return target as unknown as FuzzTarget<unknown>;
}

export const FUZZ_TARGETS: readonly FuzzTarget<unknown>[] = [
  erased(frameBinaryTarget),
  erased(frameJsonTarget),
  erased(bleFragmentsTarget()),
  erased(fileChunksTarget),
  erased(controlGateTarget),
  erased(addressesTarget),
  erased(applyCommitTarget),
  erased(hubFramesTarget),
  erased(serialFramesTarget),
];
