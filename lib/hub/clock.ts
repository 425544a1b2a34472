/** The client's time is the project's one `Clock` (lib/clock.ts); re-exported where lib/hub always had it. */
export { ManualClock, systemClock, type Clock, type TimerHandle } from '../clock';
