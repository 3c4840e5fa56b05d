// Fusions with scatter and index_put_accumulate for codegen tests (kernel model, nvcc) and the
// GPU indexing suite: scatter along each dim with a tensor src (smaller and larger than the
// index) and with a scalar src, every dtype the kernel takes, index_put_accumulate with duplicate
// indices (and a broadcast value), a scatter / index_put_accumulate between pointwise ops (three
// segments), and a seeded random generator of such fusions. Scatter indices are unique along
// the scattered dim (PyTorch leaves the value of duplicate scatter indices unspecified), so a
// scatter result is exact; index_put_accumulate indices repeat, and its sums are compared with
// a bound of the accumulation order's rounding (scatterMismatch).

import {
  add,
  cast,
  contiguousStrides,
  Fusion,
  HostTensor,
  indexPutAccumulate,
  makeTensor,
  mul,
  scatter,
  type DataType,
  type TensorView,
} from '@tsfuser/fusion-ir';

/** One fusion input: data, or an index tensor with values in [0, bound) (`uniqueDim`: distinct along that dim). */
export type ScatterInput = { kind: 'data'; sizes: number[]; dtype: DataType } | { kind: 'index'; sizes: number[]; dtype: 'Int' | 'Int32'; bound: number; uniqueDim: number | null };

export interface ScatterCase {
  name: string;
  fusion: Fusion;
  inputs: ScatterInput[];
}

const INTEGER: readonly DataType[] = ['Int', 'Int32'];

function dataValues(dtype: DataType, n: number, next: () => number): (number | bigint | boolean)[] {
  if (dtype === 'Bool') return Array.from({ length: n }, () => next() < 0.5);
  if (dtype === 'Int') return Array.from({ length: n }, () => BigInt(Math.floor(next() * 41) - 20));
  if (dtype === 'Int32') return Array.from({ length: n }, () => Math.floor(next() * 41) - 20);
  return Array.from({ length: n }, () => next() * 4 - 2);
}

function indexValues(inp: Extract<ScatterInput, { kind: 'index' }>, next: () => number): number[] {
  const n = inp.sizes.reduce((a, b) => a * b, 1);
  if (inp.uniqueDim === null) return Array.from({ length: n }, () => Math.floor(next() * inp.bound));
  const d = inp.uniqueDim;
  const strides = contiguousStrides(inp.sizes);
  const values = new Array<number>(n).fill(0);
  const lineSizes = inp.sizes.map((s, k) => (k === d ? 1 : s));
  const lines = lineSizes.reduce((a, b) => a * b, 1);
  for (let line = 0; line < lines; line += 1) {
    let rest = line;
    let base = 0;
    for (let k = inp.sizes.length - 1; k >= 0; k -= 1) {
      const c = rest % (lineSizes[k] as number);
      rest = Math.floor(rest / (lineSizes[k] as number));
      base += c * (strides[k] as number);
    }
    // A random prefix of a permutation of [0, bound).
    const perm = Array.from({ length: inp.bound }, (_, i) => i);
    for (let i = 0; i < (inp.sizes[d] as number); i += 1) {
      const j = i + Math.floor(next() * (inp.bound - i));
      [perm[i], perm[j]] = [perm[j] as number, perm[i] as number];
      values[base + i * (strides[d] as number)] = perm[i] as number;
    }
  }
  return values;
}

/** Seeded inputs for a case; `outOfRange` puts the value `bound` (one past the end) into the first index tensor. */
export function scatterInputs(c: ScatterCase, next: () => number, outOfRange = false): HostTensor[] {
  let poisoned = !outOfRange;
  return c.inputs.map((inp) => {
    const n = inp.sizes.reduce((a, b) => a * b, 1);
    if (inp.kind === 'data') return HostTensor.fromValues(inp.dtype, inp.sizes, dataValues(inp.dtype, n, next));
    const values = indexValues(inp, next);
    if (!poisoned && n > 0) {
      values[Math.floor(next() * n)] = inp.bound;
      poisoned = true;
    }
    return HostTensor.fromValues(inp.dtype, inp.sizes, inp.dtype === 'Int' ? values.map((v) => BigInt(v)) : values);
  });
}

function build(inputs: ScatterInput[], body: (vals: TensorView[]) => TensorView): Fusion {
  const f = new Fusion();
  const vals = inputs.map((inp) => {
    const v = makeTensor(f, { shape: inp.sizes.map(() => -1), dtype: inp.dtype });
    f.addInput(v);
    return v;
  });
  f.addOutput(body(vals));
  return f;
}

function scatterCase(name: string, dtype: DataType, self: number[], dim: number, index: number[], src: number[] | number, indexDtype: 'Int' | 'Int32' = 'Int'): ScatterCase {
  const inputs: ScatterInput[] = [
    { kind: 'data', sizes: self, dtype },
    { kind: 'index', sizes: index, dtype: indexDtype, bound: self[dim] as number, uniqueDim: dim },
  ];
  if (typeof src !== 'number') inputs.push({ kind: 'data', sizes: src, dtype });
  const fusion = build(inputs, ([s, i, x]) => scatter(s as TensorView, dim, i as TensorView, typeof src === 'number' ? src : (x as TensorView)));
  return { name, fusion, inputs };
}

function accumulateCase(name: string, dtype: DataType, acc: number[], rows: number, valueSizes?: number[], indexDtype: 'Int' | 'Int32' = 'Int'): ScatterCase {
  const inputs: ScatterInput[] = [
    { kind: 'data', sizes: acc, dtype },
    { kind: 'index', sizes: [rows], dtype: indexDtype, bound: acc[0] as number, uniqueDim: null },
    { kind: 'data', sizes: valueSizes ?? [rows, ...acc.slice(1)], dtype },
  ];
  return { name, fusion: build(inputs, ([a, i, v]) => indexPutAccumulate(a as TensorView, i as TensorView, v as TensorView)), inputs };
}

/** The fixtures: `r` rows, `k` columns (the GPU suite runs them at two sizes). */
export function scatterCases(r = 37, k = 131): ScatterCase[] {
  const small = Math.max(1, Math.floor(k / 3));
  const cases: ScatterCase[] = [
    scatterCase('scatter_dim1_Float', 'Float', [r, k], 1, [r, small], [r, small]),
    scatterCase('scatter_dim0_Float', 'Float', [r, k], 0, [Math.max(1, r - 3), k], [r, k]),
    scatterCase('scatter_dim1_larger_src_Float', 'Float', [r, k], 1, [Math.max(1, r - 1), small], [r, k], 'Int32'),
    scatterCase('scatter_scalar_src_Float', 'Float', [r, k], 1, [r, small], 0.5),
    scatterCase('scatter_Double', 'Double', [r, k], 1, [r, small], [r, small]),
    scatterCase('scatter_Half', 'Half', [r, k], 1, [r, small], [r, small]),
    scatterCase('scatter_BFloat16', 'BFloat16', [r, k], 0, [r, k], [r, k]),
    scatterCase('scatter_Int32', 'Int32', [r, k], 1, [r, small], [r, small]),
    scatterCase('scatter_Int', 'Int', [r, k], 1, [r, small], [r, small]),
    scatterCase('scatter_Bool', 'Bool', [r, k], 1, [r, small], [r, small]),
    scatterCase('scatter_rank3_dim1_Float', 'Float', [3, r, 5], 1, [2, Math.max(1, r - 2), 5], [3, r, 5]),
    accumulateCase('index_put_accumulate_Float', 'Float', [r, k], 3 * r),
    accumulateCase('index_put_accumulate_Double', 'Double', [r, k], 2 * r, undefined, 'Int32'),
    accumulateCase('index_put_accumulate_Half', 'Half', [r, k], 2 * r),
    accumulateCase('index_put_accumulate_BFloat16', 'BFloat16', [r, k], 2 * r),
    accumulateCase('index_put_accumulate_Int32', 'Int32', [r, k], 3 * r),
    accumulateCase('index_put_accumulate_Int', 'Int', [r, k], 3 * r),
    accumulateCase('index_put_accumulate_broadcast_value_Float', 'Float', [r, k], 2 * r, [2 * r, 1]),
    accumulateCase('index_put_accumulate_rank1_Float', 'Float', [r], 5 * r),
  ];
  // Between pointwise ops: x + 1 → scatter → · 2 (a pointwise segment, the scatter, a pointwise segment).
  {
    const inputs: ScatterInput[] = [
      { kind: 'data', sizes: [r, k], dtype: 'Float' },
      { kind: 'index', sizes: [r, small], dtype: 'Int', bound: k, uniqueDim: 1 },
      { kind: 'data', sizes: [r, small], dtype: 'Float' },
    ];
    cases.push({ name: 'pointwise_scatter_pointwise_Float', fusion: build(inputs, ([x, i, s]) => mul(scatter(add(x as TensorView, 1), 1, i as TensorView, s as TensorView), 2)), inputs });
  }
  {
    const inputs: ScatterInput[] = [
      { kind: 'data', sizes: [r, k], dtype: 'BFloat16' },
      { kind: 'index', sizes: [2 * r], dtype: 'Int', bound: r, uniqueDim: null },
      { kind: 'data', sizes: [2 * r, k], dtype: 'Float' },
    ];
    // The Float value is cast to the acc's BFloat16 (a pointwise segment before the kernel).
    cases.push({
      name: 'index_put_accumulate_cast_value_then_scale_BFloat16',
      fusion: build(inputs, ([a, i, v]) => cast(mul(indexPutAccumulate(a as TensorView, i as TensorView, v as TensorView), 2), 'BFloat16')),
      inputs,
    });
  }
  return cases;
}

const DTYPES: readonly DataType[] = ['Float', 'Double', 'Half', 'BFloat16', 'Int32', 'Int'];

function pick<T>(next: () => number, xs: readonly T[]): T {
  return xs[Math.floor(next() * xs.length)] as T;
}

function size(next: () => number): number {
  return 1 + Math.floor(next() * 24);
}

/** A random scatter or index_put_accumulate fusion (rank 1–3, any dim, sizes up to 24, sometimes between pointwise ops). */
export function randomScatterCase(next: () => number, k: number): ScatterCase {
  const rank = 1 + Math.floor(next() * 3);
  const dtype = pick(next, DTYPES);
  const indexDtype = next() < 0.5 ? 'Int' : 'Int32';
  const self = Array.from({ length: rank }, () => size(next));
  const wrap = next() < 0.3 && !INTEGER.includes(dtype);
  let c: ScatterCase;
  if (next() < 0.5) {
    const dim = Math.floor(next() * rank);
    const index = self.map((s) => 1 + Math.floor(next() * s));
    const scalar = next() < 0.2;
    const src = index.map((s, d) => (next() < 0.5 ? s : Math.max(s, (self[d] as number) + Math.floor(next() * 3))));
    c = scatterCase(`random${k}_scatter_dim${dim}_${dtype}`, dtype, self, dim, index, scalar ? 1.25 : src, indexDtype);
  } else {
    const rows = 1 + Math.floor(next() * 3 * (self[0] as number));
    const broadcast = rank > 1 && next() < 0.2;
    const value = broadcast ? [rows, ...self.slice(1).map(() => 1)] : undefined;
    c = accumulateCase(`random${k}_index_put_accumulate_${dtype}`, dtype, self, rows, value, indexDtype);
  }
  if (!wrap) return c;
  // Wrapped: acc / self + 1 before, · 2 after (three segments).
  const body = c.fusion.exprs().find((e) => e.kind === 'ScatterOp' || e.kind === 'IndexPutAccumulateOp');
  const inputs = c.inputs;
  const fusion = build(inputs, (vals) => {
    const [s, i, x] = vals as [TensorView, TensorView, TensorView | undefined];
    const before = add(s, 1);
    const mid =
      body?.kind === 'ScatterOp'
        ? scatter(cast(before, dtype), body.dim, i, x ?? 1.25)
        : indexPutAccumulate(cast(before, dtype), i, x as TensorView);
    return mul(mid, 2);
  });
  return { name: `${c.name}_wrapped`, fusion, inputs };
}

function unitRoundoff(d: DataType): number {
  switch (d) {
    case 'Half':
      return 2 ** -11;
    case 'BFloat16':
      return 2 ** -8;
    case 'Float':
      return 2 ** -24;
    case 'Double':
      return 2 ** -53;
    default:
      return 0;
  }
}

/**
 * The first mismatch of `got` against the reference's `want`, or null. Scatter results (unique
 * indices) and integer sums must be equal. Floating index_put_accumulate sums may differ by the
 * rounding of the atomics' order: per element, 4·u·(n + 2)·(|want| + 2·Σ|value|) for n adds of
 * unit roundoff u (the output dtype's, or Float's for consumers computing in float), plus one
 * rounding of the output.
 */
export function scatterMismatch(c: ScatterCase, inputs: readonly HostTensor[], got: readonly HostTensor[], want: readonly HostTensor[]): string | null {
  const op = c.fusion.exprs().find((e) => e.kind === 'IndexPutAccumulateOp');
  let slack: Float64Array | null = null;
  let u = 0;
  if (op !== undefined && op.kind === 'IndexPutAccumulateOp') {
    const acc = op.accTv();
    u = Math.max(unitRoundoff(acc.dtype), unitRoundoff('Float'));
    const index = inputs[c.fusion.inputs.indexOf(op.indexTv())];
    const valueInput = c.fusion.inputs.findIndex((v) => v === op.valueTv() || (op.valueTv().definition?.inputs.includes(v) ?? false));
    const value = inputs[valueInput];
    const out = want[0];
    if (index !== undefined && value !== undefined && out !== undefined) {
      const inner = out.numel / (out.sizes[0] as number);
      const abs = new Float64Array(out.numel);
      const count = new Float64Array(out.numel);
      const rows = index.numel;
      const vals = value.toNumbers();
      const valueInner = value.numel / rows;
      for (let m = 0; m < rows; m += 1) {
        const row = Number(index.get(m));
        for (let j = 0; j < inner; j += 1) {
          const slot = row * inner + j;
          if (slot >= abs.length) continue;
          abs[slot] = (abs[slot] as number) + Math.abs(vals[m * valueInner + (valueInner === 1 ? 0 : j)] as number);
          count[slot] = (count[slot] as number) + 1;
        }
      }
      slack = abs.map((a, k) => 4 * u * ((count[k] as number) + 2) * 2 * a);
      const w = out.toNumbers();
      slack = slack.map((s, k) => s + 4 * u * ((count[k] as number) + 2) * Math.abs(w[k] as number));
    }
  }
  for (let o = 0; o < want.length; o += 1) {
    const w = want[o] as HostTensor;
    const g = got[o];
    if (g === undefined) return `output ${o} missing`;
    if (w.sizes.join(',') !== g.sizes.join(',')) return `output ${o}: sizes [${g.sizes.join(', ')}], want [${w.sizes.join(', ')}]`;
    const wn = w.toNumbers();
    const gn = g.toNumbers();
    const round = unitRoundoff(w.dtype);
    for (let k = 0; k < wn.length; k += 1) {
      const x = wn[k] as number;
      const y = gn[k] as number;
      const tol = (slack?.[k] ?? 0) * (o === 0 ? 1 : 0) + 2 * round * Math.abs(x);
      const ok = Number.isNaN(x) ? Number.isNaN(y) : x === y || Math.abs(x - y) <= tol;
      if (!ok) return `output ${o} element ${k}: got ${y}, want ${x} (tolerance ${tol.toPrecision(3)})`;
    }
  }
  return null;
}
