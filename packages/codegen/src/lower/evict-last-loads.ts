// Optimisation pass `evict-last-loads` (pointwise kernels with evictLastInputs) — every global
// vector load of one of those fusion inputs gets cacheHint 'evictLastL2', emitted as
// ld.global.L1::evict_last.L2::cache_hint with an L2 evict_last policy made by createpolicy (what
// Triton emits for Inductor's evict_last loads). Which inputs: pointwise/heuristics.ts
// (`evictLastInputs`: every vectorized input, unless some input the grid reads again is re-read
// only after more than half the L2 has streamed past — then only those), which with the
// scheduler README says what each choice was measured to gain.
// Invariant: only hints change; every statement, index and predicate stays as it was, so the
// kernel computes exactly what it did without the pass.

import type { Stmt } from '../kernel-ir/nodes.js';
import { mapLeaves } from '../kernel-ir/walk.js';

/** Marks every global vector load of the named tensors (kernel names, e.g. `T1`) evict-last in L1 and L2. */
export function evictLastLoads(body: readonly Stmt[], tensors: ReadonlySet<string>): Stmt[] {
  return mapLeaves(body, (s) =>
    s.kind === 'LoadStore' && s.in.memory === 'Global' && s.out.memory === 'Local' && s.width > 1 && tensors.has(s.in.tensor) ? { ...s, cacheHint: 'evictLastL2' } : s,
  );
}
