// The random persistent resize checks shared by persistent-resize-random.test.ts (fast tier,
// 40 inner cases) and persistent-resize-random-sweep.test.ts (slow tier, 200 more from another
// seed): each case from test-support persistent-resize-random.ts must be the ONE persistent
// segment it names and simulate like the reference evaluator; every other inner and outer case
// again under forced parameters (several persistent batches, two rows or four columns per
// block), which the heuristics pick only for larger sizes. Failures name the seed.
import { expect } from 'vitest';
import { randomInnerOuterPersistentResizeCase, randomOuterPersistentResizeCase, randomPersistentResizeCase, type RandomReshapeCase } from '@tsfuser/test-support';
import { InnerPersistentScheduler, OuterPersistentScheduler, SchedulerRegistry } from '@tsfuser/scheduler';
import { segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

export type PersistentResizeKind = 'inner' | 'outer' | 'inner-outer';

const GENERATORS: Record<PersistentResizeKind, (seed: number) => RandomReshapeCase> = {
  inner: randomPersistentResizeCase,
  outer: randomOuterPersistentResizeCase,
  'inner-outer': randomInnerOuterPersistentResizeCase,
};

/** The forced-parameter registry for case `k` of `kind`, or null (odd cases, inner-outer). */
function forcedRegistry(kind: PersistentResizeKind, k: number): { registry: SchedulerRegistry; what: string } | null {
  if (k % 2 !== 0) return null;
  if (kind === 'inner') {
    const batches = 2 + (k % 4) / 2;
    return { registry: new SchedulerRegistry([new InnerPersistentScheduler({ batches, bdimy: 2 })]), what: `${batches} batches, bdimy 2` };
  }
  if (kind === 'outer') return { registry: new SchedulerRegistry([new OuterPersistentScheduler({ batches: 3, bdimx: 4 })]), what: '3 batches, bdimx 4' };
  return null;
}

/** Checks `count` random `kind` cases from `seed` (see the header). */
export function checkPersistentResizeCases(kind: PersistentResizeKind, seed: number, count: number): void {
  for (let k = 0; k < count; k += 1) {
    const c = GENERATORS[kind](seed + k);
    const label = `random ${kind} persistent resize ${seed + k} (TSFUSER_SEED=${seed}, iteration ${k}; ${c.description})`;
    try {
      const segments = segmentsWithInputs(c.fusion, c.inputs);
      expect(segments.map((s) => s.type).join('+')).toBe(c.segments);
      simulateAndCheck(c.fusion, c.inputs, label);
      const forced = forcedRegistry(kind, k);
      if (forced !== null) simulateAndCheck(c.fusion, c.inputs, `${label} (forced: ${forced.what})`, forced.registry);
    } catch (e) {
      throw new Error(`${label}: ${(e as Error).message.slice(0, 800)}`);
    }
  }
}
