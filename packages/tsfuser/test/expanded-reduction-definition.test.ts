// Reductions of expanded (stride-0) inputs from python definitions, as nvFuser's
// test_expanded_reduction defines them (contiguity None on an expanded dim): sum / prod / max /
// min over an expanded dim, over a non-expanded one and over both, keepdim or not. The values
// match the reduction computed on the host over every element of the stride-0 input, and the GPU
// path plans each as one kernel (the CUDA the plan would launch, built without a GPU).

import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { FusionCache, Tensor, importPythonDefinition } from '../src/index.js';
import { loadDefinition } from '../src/cli/load-definition.js';
import { materializeInput } from '../src/io/input-generation.js';
import { Random } from '../src/io/random.js';
import { FIXTURES } from './helpers.js';

const HEADER = 'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n';

function definition(contiguity: string, op: string, dims: readonly number[], keepdim: boolean): string {
  return (
    `${HEADER}    T0 = fd.define_tensor(shape=[-1, -1], contiguity=${contiguity}, dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])\n` +
    `    T1 = fd.ops.${op}(T0, dims=[${dims.join(', ')}], keepdim=${keepdim ? 'True' : 'False'}, dtype=DataType.Null)\n    fd.add_output(T1)\n`
  );
}

type Op = 'sum' | 'prod' | 'max' | 'min';
const combine: Record<Op, (a: number, b: number) => number> = { sum: (a, b) => a + b, prod: (a, b) => a * b, max: Math.max, min: Math.min };

/** The reduction over `dims` of the [rows, cols] tensor whose element (r, c) is at(r, c), on the host in float64. */
function hostReduce(op: Op, rows: number, cols: number, at: (r: number, c: number) => number, dims: readonly number[]): number[] {
  const out: number[] = [];
  const outer = dims.includes(0) ? 1 : rows;
  const inner = dims.includes(1) ? 1 : cols;
  for (let i = 0; i < outer; i++) {
    for (let j = 0; j < inner; j++) {
      let acc: number | null = null;
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < cols; c++) {
          if ((!dims.includes(0) && r !== i) || (!dims.includes(1) && c !== j)) continue;
          const v = at(r, c);
          acc = acc === null ? v : combine[op](acc, v);
        }
      }
      out.push(acc ?? 0);
    }
  }
  return out;
}

const seed = Date.now() % 100000;

describe(`reductions of expanded inputs from python definitions (seed ${seed})`, () => {
  const cases: [string, string, [number, number]][] = [
    ['both dims expanded (test_expanded_reduction)', '[None, None]', [0, 0]],
    ['rows expanded', '[None, True]', [0, 1]],
    ['columns expanded', '[True, None]', [1, 0]],
  ];
  it.each(cases)('%s: every op, dims and keepdim match the host and plan at most one kernel', async (_what, contiguity, strides) => {
    const rng = new Random(seed + strides[0] * 2 + strides[1]);
    for (const op of ['sum', 'prod', 'max', 'min'] as const) {
      for (const dims of [[0], [1], [0, 1]]) {
        for (const keepdim of [false, true]) {
          const rows = rng.int(1, 6);
          const cols = rng.int(1, 9);
          // The stored values: one per un-expanded element, near 1 so products stay tame.
          const [storedRows, storedCols] = [strides[0] === 0 ? 1 : rows, strides[1] === 0 ? 1 : cols];
          const data = Float32Array.from({ length: storedRows * storedCols }, () => 0.75 + rng.uniform() / 2);
          const rowStride = strides[0] === 0 ? 0 : storedCols;
          const colStride = strides[1] === 0 ? 0 : 1;
          const input = Tensor.fromHost(new HostTensor('Float', [rows, cols], [rowStride, colStride], data));
          const fd = importPythonDefinition(definition(contiguity, op, dims, keepdim), { cache: new FusionCache() });
          const [out] = await fd.execute([input], { backend: 'reference' });
          const want = hostReduce(op, rows, cols, (r, c) => data[r * rowStride + c * colStride] as number, dims);
          const where = `seed ${seed}: ${op} dims [${dims.join(', ')}] keepdim ${keepdim} of [${rows}, ${cols}] strides [${rowStride}, ${colStride}]`;
          const keptSizes = [dims.includes(0) ? 1 : rows, dims.includes(1) ? 1 : cols];
          expect(out?.sizes, where).toEqual(keepdim ? keptSizes : keptSizes.filter((_, d) => !dims.includes(d)));
          const got = (out?.toArray() ?? []) as number[];
          got.forEach((g, k) => expect(Math.abs(g - (want[k] as number)), `${where}: element ${k} ${g} vs ${want[k]}`).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(want[k] as number))));
          // max / min over expanded dims only is a squeeze of the input: a view, no kernel or a copy.
          const view = (op === 'max' || op === 'min') && dims.every((d) => strides[d] === 0);
          let kernels = 0;
          try {
            kernels = fd.lastCudaCode().match(/__global__/g)?.length ?? 0;
          } catch (e) {
            if (!view || !/launched no kernel/.test((e as Error).message)) throw e;
          }
          expect(kernels, where).toBe(view ? Math.min(kernels, 1) : 1);
        }
      }
    }
  });

  it('the GPU suite definitions nvfuser/expanded_reduction.py and expanded_rows_reduction.py: stride-0 inputs from their inputs line, values', async () => {
    const whole = await loadDefinition(`${FIXTURES}nvfuser/expanded_reduction.py`, FIXTURES);
    const [x] = (whole.inputs ?? []).map((spec) => materializeInput(spec, new Random(seed)));
    expect((x as Tensor).strides).toEqual([0, 0]);
    const outs = await whole.definition.execute([x as Tensor], { backend: 'reference' });
    expect(outs.map((o) => [o.sizes, o.toArray()])).toEqual([[[3], [2.5, 2.5, 2.5]], [[1, 3], [2.5, 2.5, 2.5]]]);
    const rows = await loadDefinition(`${FIXTURES}nvfuser/expanded_rows_reduction.py`, FIXTURES);
    const [y] = (rows.inputs ?? []).map((spec) => materializeInput(spec, new Random(seed)));
    const host = (y as Tensor).toHost();
    expect(host.strides).toEqual([0, 1]);
    const rowSum = host.toNumbers().slice(0, 1000).reduce((a, b) => a + b, 0);
    const [out] = await rows.definition.execute([y as Tensor], { backend: 'reference' });
    expect(out?.sizes).toEqual([37]);
    for (const v of (out?.toArray() ?? []) as number[]) expect(Math.abs(v - rowSum), `seed ${seed}`).toBeLessThan(1e-3);
  });
});
