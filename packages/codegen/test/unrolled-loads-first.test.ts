// The `unrolled-loads-first` lowering pass (src/lower/unrolled-loads-first.ts): in an unrolled
// pointwise loop with indexed loads, every element's loads come before the first store and a
// loop-invariant id is read once. Checked on the kernel IR (shape, the verifier after every pass)
// and by simulating embedding lookups (random ids with repeats, padding_idx, bf16 / f32, odd
// hidden sizes), the indexing fixtures and random indexed-load fusions under unrolled schedules
// against the reference evaluator; the loads copy elements, so every value must be equal.
import { add, cast, embeddingFwd, Fusion, HostTensor, makeTensor, mul, type DataType, type EvalValue, type TensorView } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo, PointwiseScheduler, SchedulerRegistry, type PointwiseOverrides } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { indexingCases, indexingInputs, randomIndexingCase, seededRandom, testSeed } from '@tsfuser/test-support';
import { compileFusion, lowerFusion, verifyKernelIr, type Stmt } from '../src/index.js';
import { simulateKernel } from './kernel-simulator.js';
import { lowerWith, runtimeInfoOf, simulateAndCheck } from './shape-ops-simulation.js';

const seed = testSeed();

interface EmbeddingCase {
  fusion: Fusion;
  inputs: EvalValue[];
  label: string;
}

/** embedding_fwd of `tokens` ids (drawn from `distinct` values: repeats) into a [vocab, hidden] table, maybe scaled. */
function embeddingCase(r: () => number, dtype: DataType, tokens: number, vocab: number, hidden: number, options: { distinct?: number; paddingIdx?: number; scaled?: boolean; int32?: boolean } = {}): EmbeddingCase {
  const f = new Fusion();
  const ids = makeTensor(f, { shape: [-1], dtype: options.int32 === true ? 'Int32' : 'Int' });
  const table = makeTensor(f, { shape: [-1, -1], dtype });
  f.addInput(ids);
  f.addInput(table);
  const looked = embeddingFwd(ids, table, options.paddingIdx === undefined ? {} : { paddingIdx: options.paddingIdx });
  f.addOutput(options.scaled === true ? cast(add(mul(looked, 2), 1), dtype) : looked);
  const pool = Array.from({ length: Math.min(vocab, options.distinct ?? vocab) }, () => Math.floor(r() * vocab));
  const idValues = Array.from({ length: tokens }, () => pool[Math.floor(r() * pool.length)] as number);
  if (options.paddingIdx !== undefined) idValues[0] = options.paddingIdx;
  const idTensor = options.int32 === true ? HostTensor.fromValues('Int32', [tokens], idValues) : HostTensor.fromValues('Int', [tokens], idValues.map((v) => BigInt(v)));
  const tableTensor = HostTensor.fromValues(dtype, [vocab, hidden], Array.from({ length: vocab * hidden }, () => r() * 4 - 2));
  const label = `embedding ${dtype} ${tokens} ids (${options.distinct ?? 'any'} distinct) into [${vocab}, ${hidden}]${options.paddingIdx === undefined ? '' : ` padding_idx ${options.paddingIdx}`}${options.scaled === true ? ' scaled' : ''}`;
  return { fusion: f, inputs: [idTensor, tableTensor], label };
}

const SCHEDULES: PointwiseOverrides[] = [{}, { breakPoint: 1, bdimx: 32, unroll: 4 }, { breakPoint: 1, bdimx: 32, unroll: 2 }, { breakPoint: 0, bdimx: 64, unroll: 4 }];

/** The loops of a statement tree, outermost first. */
function loops(body: readonly Stmt[]): Extract<Stmt, { kind: 'ForLoop' }>[] {
  return body.flatMap((s) => (s.kind === 'ForLoop' ? [s, ...loops(s.body)] : s.kind === 'IfThenElse' ? [...loops(s.then), ...loops(s.else)] : []));
}

/** Whether `body` (nested) stores to global memory. */
function stores(body: readonly Stmt[]): boolean {
  return body.some((s) => (s.kind === 'LoadStore' ? s.out.memory === 'Global' : s.kind === 'ForLoop' ? stores(s.body) : s.kind === 'IfThenElse' ? stores(s.then) || stores(s.else) : false));
}

describe(`unrolled-loads-first: embedding lookups match the reference (seed ${seed})`, () => {
  const r = seededRandom(seed);
  const cases = [
    embeddingCase(r, 'BFloat16', 24, 50, 37, { distinct: 3 }),
    embeddingCase(r, 'Float', 17, 9, 65, { paddingIdx: 2 }),
    embeddingCase(r, 'BFloat16', 13, 31, 129, { scaled: true, distinct: 5, int32: true }),
    embeddingCase(r, 'Float', 40, 7, 64, { distinct: 2 }),
    embeddingCase(r, 'BFloat16', 64, 97, 256, { paddingIdx: 0 }),
  ];
  for (const c of cases) {
    it(`${c.label} under ${SCHEDULES.length} schedules`, () => {
      for (const o of SCHEDULES) {
        const sim = simulateAndCheck(c.fusion, c.inputs, `${c.label} ${JSON.stringify(o)} (TSFUSER_SEED=${seed})`, new SchedulerRegistry([new PointwiseScheduler(o)]));
        if (o.unroll !== undefined) {
          // Split: an unrolled loop of loads only, then one with the stores.
          const unrolled = loops(sim.kernel.body).filter((l) => l.unroll && l.extent.kind === 'const' && l.extent.value === o.unroll);
          expect(unrolled.length, `${c.label} ${JSON.stringify(o)}`).toBeGreaterThanOrEqual(2);
          expect(stores(unrolled[0]?.body ?? []), `${c.label} ${JSON.stringify(o)}: the first loop stores`).toBe(false);
        }
      }
    });
  }
});

describe(`unrolled-loads-first: random indexed-load fusions under unrolled schedules (seed ${seed})`, () => {
  it('24 fusions (index_select, gather, take_along_axis, select, embedding; maybe a consumer) simulate to the reference', () => {
    const next = seededRandom(seed + 1);
    let split = 0;
    for (let k = 0; k < 24; k += 1) {
      const c = randomIndexingCase(next, k);
      const inputs = indexingInputs(c, next) as EvalValue[];
      const rank = (c.fusion.outputs[0] as TensorView).nDims();
      const o: PointwiseOverrides = { breakPoint: Math.floor(next() * rank), bdimx: 32, unroll: next() < 0.5 ? 2 : 4 };
      const sim = simulateAndCheck(c.fusion, inputs, `${c.name} ${JSON.stringify(o)} (TSFUSER_SEED=${seed})`, new SchedulerRegistry([new PointwiseScheduler(o)]));
      if (loops(sim.kernel.body).some((l) => l.unroll && !stores(l.body))) split += 1;
    }
    expect(split).toBeGreaterThan(4);
  });
});

describe('unrolled-loads-first: the kernel IR', () => {
  it('the 8192 x [128256, 4096] bf16 embedding: the id read once before the loops, all lookups before the stores', () => {
    const f = new Fusion();
    const ids = makeTensor(f, { shape: [-1], dtype: 'Int' });
    const table = makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' });
    f.addInput(ids);
    f.addInput(table);
    f.addOutput(embeddingFwd(ids, table));
    const info = makeRuntimeInfo(f, [{ sizes: [8192] }, { sizes: [128256, 4096] }]);
    const { kernel } = lowerWith(f, info);
    const top = kernel.body.map((s) => s.kind);
    expect(top).toEqual(['Allocate', 'LoadStore', 'Allocate', 'ForLoop', 'ForLoop']);
    const [load, store] = kernel.body.slice(3) as Extract<Stmt, { kind: 'ForLoop' }>[];
    expect(load?.body.map((s) => s.kind)).toEqual(['IndexedLoad']);
    expect(store?.body.map((s) => s.kind)).toEqual(['LoadStore']);
    const cuda = compileFusion(f, info).dumps.cuda;
    expect(cuda).toMatch(/Array<long long, 1, 1> nvf_id0;\n\s*nvf_id0\[0\] = T0\[blockIdx\.y\];/);
    expect(cuda).toMatch(/long long nvf_index = static_cast<long long>\(nvf_id0\[0\]\);/);
    expect(cuda.match(/T0\[/g)?.length).toBe(1);
  });

  it('an id out of range still traps when the id is read once before the loops', () => {
    const c = embeddingCase(seededRandom(seed), 'Float', 9, 11, 37);
    const ids = c.inputs[0] as HostTensor;
    const bad = HostTensor.fromValues('Int', [...ids.sizes], ids.toNumbers().map((v, i) => BigInt(i === 4 ? 11 : v)));
    const inputs = [bad, c.inputs[1] as HostTensor];
    const sim = lowerWith(c.fusion, runtimeInfoOf(c.fusion, inputs), new SchedulerRegistry([new PointwiseScheduler({ breakPoint: 1, bdimx: 32, unroll: 4 })]));
    expect(sim.compiled.dumps.cuda).toMatch(/nvf_id0\[0\] = T0\[/);
    const out = HostTensor.fromValues('Float', [9, 37], new Array<number>(9 * 37).fill(0));
    expect(() => simulateKernel(sim.kernel, sim.compiled.launch, [...inputs, out]), `TSFUSER_SEED=${seed}`).toThrow(/device trap: \w+ index 11 is out of bounds for size 11/);
  });

  it('a predicated index load moves with its predicate, the index into a per-element register', () => {
    const c = indexingCases(13, 37).find((x) => x.name === 'index_select_dim1_add_BFloat16');
    if (c === undefined) throw new Error('no fixture');
    const inputs = indexingInputs(c, seededRandom(seed)) as EvalValue[];
    const sim = simulateAndCheck(c.fusion, inputs, `index_select (TSFUSER_SEED=${seed})`, new SchedulerRegistry([new PointwiseScheduler({ breakPoint: 0, bdimx: 64, unroll: 4 })]));
    const cuda = sim.compiled.dumps.cuda;
    // The index cache and the lookup both expanded to one slot per unrolled element.
    expect(cuda).toMatch(/Array<int, 4, 1> T\d+;\n\s*Array<__bfloat, 4, 1> T\d+;\n\s*#pragma unroll/);
    expect(cuda).toMatch(/nvf_index = static_cast<long long>\(T\d+\[i\d+\]\);/);
  });

  it('the verifier passes after every pass of every indexing fixture under unrolled schedules', () => {
    const problems: string[] = [];
    let split = 0;
    for (const [rows, cols] of [[13, 37], [32, 256]] as const) {
      for (const c of indexingCases(rows, cols)) {
        const rank = (c.fusion.outputs[0] as TensorView).nDims();
        for (const o of SCHEDULES.filter((x) => (x.breakPoint ?? 0) < rank)) {
          const info = makeRuntimeInfo(
            c.fusion,
            c.inputs.map((i) => (i.kind === 'scalar' ? { value: i.value } : { sizes: i.sizes })),
          );
          const scheduler = new PointwiseScheduler(o);
          const params = scheduler.computeHeuristics(c.fusion, info);
          const scheduled = scheduler.schedule(c.fusion.clone().fusion, params);
          const lp = params.lparams;
          lowerFusion(scheduled, {
            kernelName: 'k',
            maxThreadsPerBlock: lp.bdimx * lp.bdimy * lp.bdimz,
            observe: (pass, body, kernelParams) => {
              if (pass === 'unrolled-loads-first' && loops(body).some((l) => l.unroll && !stores(l.body))) split += 1;
              for (const p of verifyKernelIr(body, kernelParams, { pendingAllowed: pass === 'loop-nest' || pass === 'allocation' })) problems.push(`${c.name} ${JSON.stringify(o)} after ${pass}: ${p}`);
            },
          });
        }
      }
    }
    expect(problems.slice(0, 10)).toEqual([]);
    expect(split).toBeGreaterThan(10);
  });
});
