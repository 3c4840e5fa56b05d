// A segment's parameters as its scheduler computes them while the plan is built: a refusal (the
// scheduler's SchedulingError, e.g. a segmentation made for other layouts) is said with the
// segment it stops first, so the one error names where in the plan it happened.
// Invariant: any other error propagates unchanged (it is a bug, not a refusal).

import { SchedulingError } from '@tsfuser/scheduler';

/** `compute`'s result; its SchedulingError said with `where` first. */
export function planned<T>(compute: () => T, where: string): T {
  try {
    return compute();
  } catch (err) {
    if (err instanceof SchedulingError) throw new SchedulingError(`${where}: ${err.message}`);
    throw err;
  }
}
