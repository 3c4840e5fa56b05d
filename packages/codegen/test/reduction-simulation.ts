// Test helpers for reduction codegen: a fixture by name, scheduling + lowering that also
// returns the kernel IR, a statement walker, random inputs, dtype tolerances, and the
// simulate-and-compare check (kernel simulator vs the reference evaluator, fresh seeded random
// inputs: the seed is in every failure message, TSFUSER_SEED replays it).
import { evaluate, HostTensor, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { compileFusion, lowerFusion, type CompiledKernel, type Kernel, type Stmt } from '../src/index.js';
import { simulateKernel } from './kernel-simulator.js';
import { isWelfordKind, reductionFixtures, reductionRegistry, seededRandom, testSeed, type ReductionCase } from '@tsfuser/test-support';

export function byName(name: string): ReductionCase {
  const c = reductionFixtures().find((x) => x.name === name);
  if (c === undefined) throw new Error(`no fixture ${name}`);
  return c;
}

/** Schedules and lowers like compileFusion, but returns the kernel IR object too. */
export function lowerCase(c: ReductionCase): { kernel: Kernel; compiled: CompiledKernel } {
  const compiled = compileFusion(c.fusion, c.info, { registry: reductionRegistry() });
  const { scheduler } = reductionRegistry().pick(c.fusion, c.info);
  const scheduled = scheduler.schedule(c.fusion.clone().fusion, compiled.params);
  const kernel = lowerFusion(scheduled, { kernelName: compiled.kernelName, maxThreadsPerBlock: compiled.launch.block[0] * compiled.launch.block[1] });
  return { kernel, compiled };
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

export function randomValues(dtype: DataType, n: number, op: ReductionCase['op'], rand: () => number): (number | boolean)[] {
  if (dtype === 'Bool') return Array.from({ length: n }, () => rand() < 0.8);
  if (dtype === 'Int32' || dtype === 'Int') return Array.from({ length: n }, () => Math.floor((rand() - 0.5) * 100));
  // products stay finite near 1
  if (op === 'prod') return Array.from({ length: n }, () => 0.9 + rand() * 0.2);
  return Array.from({ length: n }, () => (rand() - 0.5) * 8);
}

/** Relative error bound: output rounding plus accumulation in float over the reduced extent. */
export function tolerance(dtype: DataType, reductionSize: number): number {
  const out = dtype === 'Half' ? 2e-3 : dtype === 'BFloat16' ? 1.6e-2 : dtype === 'Float' ? 1e-6 : dtype === 'Double' ? 1e-12 : 0;
  return out + (dtype === 'Double' ? 1e-15 : 2e-7) * Math.sqrt(Math.max(1, reductionSize)) * 8;
}

/** The least precise float dtype any tensor of the fusion has (what bounds the error). */
export function coarsestDtype(c: ReductionCase): DataType {
  const rank: DataType[] = ['BFloat16', 'Half', 'Float', 'Double'];
  const dtypes = new Set(c.fusion.allTvs().map((tv) => tv.dtype));
  return rank.find((d) => dtypes.has(d)) ?? 'Int';
}

export function simulateAndCompare(c: ReductionCase): void {
  const { kernel, compiled } = lowerCase(c);
  const seed = testSeed();
  const rand = seededRandom(seed);
  const inputs = c.fusion.inputs.map((v, i) => {
    const tv = v as TensorView;
    const sizes = c.sizes[i] as number[];
    return HostTensor.fromValues(tv.dtype, sizes, randomValues(tv.dtype, sizes.reduce((a, b) => a * b, 1), c.op, rand));
  });
  const want = evaluate(c.fusion, inputs) as HostTensor[];
  const outs = want.map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.sizes.reduce((a, b) => a * b, 1)).fill(w.dtype === 'Bool' ? 0 : NaN)));
  const got = compiled.launch.grid[0] === 0 ? outs : simulateKernel(kernel, compiled.launch, [...inputs, ...outs]).slice(inputs.length);
  want.forEach((w, i) => {
    const g = got[i] as HostTensor;
    const tol = tolerance(coarsestDtype(c), c.reductionSize) * (c.op === 'sum' || isWelfordKind(c.op) ? 4 : 1);
    const wn = w.toNumbers();
    const gn = g.toNumbers();
    wn.forEach((x, k) => {
      const y = gn[k] as number;
      const ok = Number.isNaN(x) ? Number.isNaN(y) : !Number.isFinite(x) ? x === y : Math.abs(x - y) <= tol * Math.max(1, Math.abs(x));
      if (!ok) throw new Error(`${c.name} (inputs: seed ${seed}): output ${i} element ${k}: got ${y}, want ${x} (tolerance ${tol})`);
    });
  });
}

