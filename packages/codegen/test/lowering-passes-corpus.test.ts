// The kernel IR verifier (src/kernel-ir/verify.ts) after every named lowering pass
// (src/lower/passes.ts) of every fixture family, each optimisation forced on in turn, and of the
// one-kernel slice / pad / cat fixtures and of the transpose fixtures; every optimisation pass must be reached at least once, so
// each is checked. Slow tier (~150 kernels).
import { describe, expect, it } from 'vitest';
import type { Fusion } from '@tsfuser/fusion-ir';
import type { InnerOuterPersistentOverrides, InnerPersistentOverrides, RuntimeInfo, SchedulerRegistry } from '@tsfuser/scheduler';
import {
  allFixtures,
  buildLayerNormBackward,
  innerOuterPersistentRegistry,
  innerPersistentRegistry,
  normalizationFixtures,
  reductionFixtures,
  reductionRegistry,
  resizeFixtures,
  runtimeInfoOf,
  seededRandom,
  transposeFixtures,
} from '@tsfuser/test-support';
import { lowerFusion, OPTIMIZATION_PASSES, verifyKernelIr } from '../src/index.js';
import { defaultSchedulerRegistry } from '@tsfuser/scheduler';

interface Observed {
  passes: string[];
  problems: string[];
}

/** Schedules as compileFusion does and lowers with the verifier after every pass. */
function lowerVerified(name: string, fusion: Fusion, info: RuntimeInfo, registry: SchedulerRegistry): Observed | null {
  const scheduler = registry.tryPick(fusion, info)?.scheduler ?? null;
  if (scheduler === null) return null;
  const params = scheduler.computeHeuristics(fusion, info);
  // views, empty outputs, GEMMs (a cuBLASLt call) and attention (kernels made from its params) lower nothing
  if (params.schedulerType === 'expr_eval' || params.schedulerType === 'no_op' || params.schedulerType === 'matmul' || params.schedulerType === 'attention') return null;
  const scheduled = scheduler.schedule(fusion.clone().fusion, params);
  const lp = params.lparams;
  const observed: Observed = { passes: [], problems: [] };
  lowerFusion(scheduled, {
    kernelName: name,
    maxThreadsPerBlock: lp.bdimx * lp.bdimy * lp.bdimz,
    observe: (pass, body, kernelParams) => {
      observed.passes.push(pass);
      const pendingAllowed = pass === 'loop-nest' || pass === 'allocation';
      for (const p of verifyKernelIr(body, kernelParams, { pendingAllowed })) observed.problems.push(`${name}, after ${pass}: ${p}`);
    },
  });
  return observed;
}

const INNER: InnerPersistentOverrides[] = [{}, { evictLastRowParams: true }, { hoistRowParamLoads: true }, { singleBarrierAllreduce: true }, { bulkLoadRows: true }];
const INNER_OUTER: InnerOuterPersistentOverrides[] = [{}, { prefetchNextRow: true }, { bulkLoadRows: true }, { groupInnerReductions: false }, { bdimy: 3 }];

describe('lowering passes on the fixture corpus', () => {
  it('the kernel IR verifier passes after every pass of every fixture family, every optimisation reached', () => {
    const seen = new Set<string>();
    const problems: string[] = [];
    let lowered = 0;
    const check = (o: Observed | null): void => {
      if (o === null) return;
      lowered += 1;
      o.passes.forEach((p) => seen.add(p));
      problems.push(...o.problems);
    };
    for (const f of allFixtures()) check(lowerVerified(f.name, f.fusion, f.info, defaultSchedulerRegistry()));
    // Slice / pad / cat (lower/resize.ts inside expression lowering): the one-kernel fixtures.
    const beforeResize = lowered;
    for (const fx of resizeFixtures()) {
      const inputs = fx.inputs(seededRandom(1));
      check(lowerVerified(fx.name, fx.fusion, runtimeInfoOf(fx.fusion, inputs), defaultSchedulerRegistry()));
    }
    const resizeKernels = lowered - beforeResize;
    // Transposes (transpose-smem-tile): the transpose fixtures at their sizes.
    for (const fx of transposeFixtures()) check(lowerVerified(fx.name, fx.fusion, runtimeInfoOf(fx.fusion, fx.inputs(seededRandom(1))), defaultSchedulerRegistry()));
    for (const c of reductionFixtures()) check(lowerVerified(c.name, c.fusion, c.info, reductionRegistry()));
    for (const overrides of INNER) {
      for (const c of normalizationFixtures(4)) check(lowerVerified(`${c.name} ${JSON.stringify(overrides)}`, c.fusion, c.info, innerPersistentRegistry(overrides)));
    }
    for (const overrides of INNER_OUTER) {
      for (const [dtype, rows, hidden] of [['BFloat16', 1100, 96], ['Float', 700, 128], ['Half', 600, 258]] as const) {
        const c = buildLayerNormBackward(dtype, rows, hidden);
        check(lowerVerified(`${c.name} ${JSON.stringify(overrides)}`, c.fusion, c.info, innerOuterPersistentRegistry(overrides)));
      }
    }
    expect(problems.slice(0, 10)).toEqual([]);
    expect(lowered).toBeGreaterThan(100);
    expect(resizeKernels).toBeGreaterThan(10);
    for (const pass of OPTIMIZATION_PASSES) expect(seen.has(pass.name), `${pass.name} never ran`).toBe(true);
  });
});
