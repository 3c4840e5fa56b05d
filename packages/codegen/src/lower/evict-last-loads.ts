// Optimisation pass `evict-last-loads` (pointwise kernels with evictLastLoads: slice / pad / cat
// fusions) — every global vector load gets cacheHint 'evictLastL2', emitted as
// ld.global.L1::evict_last.L2::cache_hint with an L2 evict_last policy made by createpolicy (what
// Triton emits for Inductor's evict_last loads). The scheduler README and
// pointwise/heuristics.ts say what it was measured to gain.
// Invariant: only hints change; every statement, index and predicate stays as it was, so the
// kernel computes exactly what it did without the pass.

import type { Stmt } from '../kernel-ir/nodes.js';
import { mapLeaves } from '../kernel-ir/walk.js';

function hint(s: Stmt): Stmt {
  return s.kind === 'LoadStore' && s.in.memory === 'Global' && s.out.memory === 'Local' && s.width > 1 ? { ...s, cacheHint: 'evictLastL2' } : s;
}

/** Marks every global vector load of the kernel body evict-last in L1 and L2. */
export function evictLastLoads(body: readonly Stmt[]): Stmt[] {
  return mapLeaves(body, hint);
}
