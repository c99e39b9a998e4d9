/** Real time for timestamps, virtual time for hold timeouts, which a test runs by hand. */
import { type SchedulerLike, VirtualTimeScheduler } from 'rxjs';

export function heldClock(): { scheduler: SchedulerLike; runTo(ms: number): void } {
  const vts = new VirtualTimeScheduler();
  const scheduler: SchedulerLike = { now: () => Date.now(), schedule: vts.schedule.bind(vts) as SchedulerLike['schedule'] };
  return {
    scheduler,
    /** Runs the timers due at or before `ms` after the start. */
    runTo: (ms: number) => {
      vts.maxFrames = ms;
      vts.flush();
    },
  };
}
