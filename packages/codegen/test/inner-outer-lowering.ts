// Shared by the inner-outer persistent codegen tests (inner-outer-persistent.test.ts, fast tier;
// inner-outer-persistent-simulation.test.ts, slow tier): lowering a layer_norm backward case to
// kernel IR, simulating it against the reference evaluator on seeded random inputs (the seed is in
// the failure message; TSFUSER_SEED replays it), and a statement walker.
import { evaluate, HostTensor } from '@tsfuser/fusion-ir';
import type { InnerOuterPersistentOverrides } from '@tsfuser/scheduler';
import { innerOuterPersistentRegistry, layerNormBackwardInputs, seededRandom, testSeed, type LayerNormBackwardCase } from '@tsfuser/test-support';
import { compileFusion, lowerFusion, type CompiledKernel, type Kernel, type Stmt } from '../src/index.js';
import { simulateKernel } from './kernel-simulator.js';

export function lowerCase(c: LayerNormBackwardCase, overrides: InnerOuterPersistentOverrides = {}): { kernel: Kernel; compiled: CompiledKernel } {
  const registry = innerOuterPersistentRegistry(overrides);
  const compiled = compileFusion(c.fusion, c.info, { registry });
  const { scheduler } = registry.pick(c.fusion, c.info);
  const scheduled = scheduler.schedule(c.fusion.clone().fusion, compiled.params);
  const kernel = lowerFusion(scheduled, { kernelName: compiled.kernelName, maxThreadsPerBlock: compiled.launch.block[0] * compiled.launch.block[1] });
  return { kernel, compiled };
}

/** Relative tolerance: output rounding plus Float accumulation over the row / the rows. */
function tolerance(c: LayerNormBackwardCase): number {
  const out = c.dtype === 'Half' ? 4e-3 : c.dtype === 'BFloat16' ? 3e-2 : 1e-5;
  return out + 2e-7 * Math.sqrt(Math.max(c.rows, c.hidden)) * 16;
}

export function simulateAndCompare(c: LayerNormBackwardCase, overrides: InnerOuterPersistentOverrides = {}): void {
  const { kernel, compiled } = lowerCase(c, overrides);
  const seed = testSeed();
  const inputs = layerNormBackwardInputs(c, seededRandom(seed));
  const want = evaluate(c.fusion, inputs) as HostTensor[];
  const outs = want.map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.numel).fill(NaN)));
  const got = simulateKernel(kernel, compiled.launch, [...inputs, ...outs]).slice(inputs.length);
  const tol = tolerance(c);
  want.forEach((w, i) => {
    const g = (got[i] as HostTensor).toNumbers();
    // Sums over many rows: scale the bound by the magnitude of what was summed.
    const scale = i === 0 ? 1 : Math.sqrt(c.rows) * 2;
    w.toNumbers().forEach((x, k) => {
      const y = g[k] as number;
      if (!(Math.abs(x - y) <= tol * Math.max(scale, Math.abs(x)))) throw new Error(`${c.name} (inputs: seed ${seed}): output ${i} element ${k}: got ${y}, want ${x} (tolerance ${tol})`);
    });
  });
}

export function walk(stmts: readonly Stmt[], insideIf: boolean, visit: (s: Stmt, insideIf: boolean) => void): void {
  for (const s of stmts) {
    visit(s, insideIf);
    if (s.kind === 'ForLoop') walk(s.body, insideIf, visit);
    if (s.kind === 'IfThenElse') {
      walk(s.then, true, visit);
      walk(s.else, true, visit);
    }
  }
}
