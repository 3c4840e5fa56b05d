// Which steps of a segmented launch plan go on the device's side stream. Segments that share
// no data (nvFuser issue #785's pow + sum: a reduction of one input beside a pointwise op of
// another) would otherwise run one after the other on one stream, and each kernel's last wave
// leaves SMs idle while the next one waits to start. A step goes on the side stream when
//   * it reads only fusion arguments (no buffer another step writes), and
//   * no step reads what it writes (its outputs are fusion outputs only), and
//   * no other step writes what it writes (a scatter's copy step and its kernel both write the
//     scatter's output: they stay in order on the main stream), and
//   * it is not the plan's first step (something must stay on the main stream to overlap);
// and no step at all does when any kernel of the plan synchronizes its grid: such a kernel
// needs all its blocks resident at once, which a concurrent kernel could prevent.
// Invariant: every step reads only data that is complete when it starts — side steps read
// arguments (ready before the fork), main steps never read a side step's output.

/** What the selection needs to know of a step: buffer indices it reads and writes. */
export interface StepAccess {
  readsBuffers: readonly number[];
  writesBuffers: readonly number[];
  /** A grid-synchronizing kernel (FusionExecutor.residentBlocksPerSm() !== null). */
  gridSynchronizing: boolean;
}

/** For each step, whether it runs on the side stream. */
export function sideStreamSteps(steps: readonly StepAccess[]): boolean[] {
  if (steps.some((s) => s.gridSynchronizing)) return steps.map(() => false);
  return steps.map((s, i) => {
    if (i === 0 || s.readsBuffers.length > 0) return false;
    const written = new Set(s.writesBuffers);
    return !steps.some((other, j) => j !== i && (other.readsBuffers.some((b) => written.has(b)) || other.writesBuffers.some((b) => written.has(b))));
  });
}
