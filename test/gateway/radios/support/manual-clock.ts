/** The radio tests use the project's one manual clock (lib/clock.ts), with its async `tick`. */
export { ManualClock, settle } from '../../../../lib/clock';
