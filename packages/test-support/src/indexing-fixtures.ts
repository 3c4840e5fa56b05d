// Fusions with indexed loads for codegen tests (simulation, nvcc) and the GPU suite:
// index_select along each dim, gather with a smaller index, take_along_axis, select at a
// scalar-input and at a negative constant index, embedding lookups (with a scaling consumer and
// a padding_idx), each with seeded inputs whose index values lie in range; and a seeded random
// generator of such fusions (op, rank, dim, sizes, dtypes, an optional pointwise consumer).

import {
  add,
  cast,
  embeddingFwd,
  Fusion,
  gather,
  HostTensor,
  indexSelect,
  makeTensor,
  mul,
  select,
  takeAlongAxis,
  type DataType,
  type TensorView,
} from '@tsfuser/fusion-ir';

/** One fusion input: data (uniform in [-2, 2)), an index tensor with values in [0, bound), or an integer scalar. */
export type IndexingInput =
  | { kind: 'data'; sizes: number[]; dtype: DataType }
  | { kind: 'index'; sizes: number[]; dtype: 'Int' | 'Int32'; bound: number }
  | { kind: 'scalar'; value: number };

export interface IndexingCase {
  name: string;
  fusion: Fusion;
  inputs: IndexingInput[];
}

/** Seeded inputs for a case; `outOfRange` puts the value `bound` (one past the end) into the first index tensor. */
export function indexingInputs(c: IndexingCase, next: () => number, outOfRange = false): (HostTensor | number)[] {
  let poisoned = !outOfRange;
  return c.inputs.map((inp) => {
    if (inp.kind === 'scalar') return inp.value;
    const n = inp.sizes.reduce((a, b) => a * b, 1);
    if (inp.kind === 'data') return HostTensor.fromValues(inp.dtype, inp.sizes, Array.from({ length: n }, () => next() * 4 - 2));
    const values = Array.from({ length: n }, () => Math.floor(next() * inp.bound));
    if (!poisoned && n > 0) {
      values[Math.floor(next() * n)] = inp.bound;
      poisoned = true;
    }
    return HostTensor.fromValues(inp.dtype, inp.sizes, inp.dtype === 'Int' ? values.map((v) => BigInt(v)) : values);
  });
}

function build(inputs: IndexingInput[], body: (f: Fusion, vals: (TensorView | ReturnType<Fusion['newSymbolicScalar']>)[]) => TensorView): Fusion {
  const f = new Fusion();
  const vals = inputs.map((inp) => {
    const v = inp.kind === 'scalar' ? f.newSymbolicScalar('Int') : makeTensor(f, { shape: inp.sizes.map(() => -1), dtype: inp.dtype });
    f.addInput(v);
    return v;
  });
  f.addOutput(body(f, vals));
  return f;
}

const tv = (v: unknown): TensorView => v as TensorView;

/** The fixed cases at problem size [rows, cols]. */
export function indexingCases(rows: number, cols: number): IndexingCase[] {
  const cases: IndexingCase[] = [];
  const data = (sizes: number[], dtype: DataType = 'Float'): IndexingInput => ({ kind: 'data', sizes, dtype });
  const index = (sizes: number[], bound: number, dtype: 'Int' | 'Int32' = 'Int'): IndexingInput => ({ kind: 'index', sizes, dtype, bound });
  const n = Math.max(1, Math.floor(rows / 2) + 3);
  const k = Math.max(1, Math.floor(cols / 3));
  const add1 = (inputs: IndexingInput[], name: string, body: (f: Fusion, v: unknown[]) => TensorView): void => {
    cases.push({ name, inputs, fusion: build(inputs, body) });
  };
  add1([data([rows, cols]), index([n], rows)], 'index_select_dim0_Float', (_f, v) => indexSelect(tv(v[0]), 0, tv(v[1])));
  add1([data([rows, cols], 'BFloat16'), index([k], cols, 'Int32'), data([rows, k], 'BFloat16')], 'index_select_dim1_add_BFloat16', (_f, v) =>
    cast(add(indexSelect(tv(v[0]), 1, tv(v[1])), tv(v[2])), 'BFloat16'),
  );
  add1([data([rows, cols]), index([rows, k], cols)], 'gather_dim1_Float', (_f, v) => gather(tv(v[0]), 1, tv(v[1])));
  add1([data([rows, cols], 'Double'), index([n, Math.max(1, cols - 1)], rows)], 'gather_dim0_smaller_Double', (_f, v) => gather(tv(v[0]), 0, tv(v[1])));
  add1([data([rows, cols], 'Half'), index([rows, k], cols, 'Int32')], 'take_along_axis_dim1_Half', (_f, v) => takeAlongAxis(tv(v[0]), tv(v[1]), 1));
  add1([data([rows, cols]), { kind: 'scalar', value: rows - 1 }], 'select_dim0_scalar_input_Float', (_f, v) => select(tv(v[0]), 0, v[1] as never));
  add1([data([rows, cols, 3])], 'select_dim2_negative_Float', (_f, v) => select(tv(v[0]), 2, -1));
  add1([index([Math.max(1, rows >> 3), 8], 97), data([97, cols], 'BFloat16')], 'embedding_scaled_BFloat16', (_f, v) =>
    cast(mul(embeddingFwd(tv(v[0]), tv(v[1])), Math.sqrt(cols)), 'BFloat16'),
  );
  add1([index([n], 61, 'Int32'), data([61, cols])], 'embedding_padding_idx_Float', (_f, v) => embeddingFwd(tv(v[0]), tv(v[1]), { paddingIdx: 0 }));
  return cases;
}

const DTYPES: DataType[] = ['Float', 'Half', 'BFloat16', 'Double'];

/** A random indexed-load fusion from `next` (op, rank 1–3, dim, sizes 1–40, dtypes, maybe an add/mul consumer). */
export function randomIndexingCase(next: () => number, id: number): IndexingCase {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
  const size = (): number => 1 + Math.floor(next() * 40);
  const op = pick(['index_select', 'gather', 'take_along_axis', 'select', 'embedding_fwd'] as const);
  const dtype = pick(DTYPES);
  const indexDtype = pick(['Int', 'Int32'] as const);
  const rank = op === 'embedding_fwd' ? 1 + Math.floor(next() * 2) : 1 + Math.floor(next() * 3);
  const lookupSizes = op === 'embedding_fwd' ? [size(), size()] : Array.from({ length: rank }, size);
  const dim = op === 'embedding_fwd' ? 0 : Math.floor(next() * rank);
  const inputs: IndexingInput[] = [];
  let outSizes: number[];
  switch (op) {
    case 'index_select': {
      const m = size();
      inputs.push({ kind: 'data', sizes: lookupSizes, dtype }, { kind: 'index', sizes: [m], dtype: indexDtype, bound: lookupSizes[dim] as number });
      outSizes = lookupSizes.map((s, d) => (d === dim ? m : s));
      break;
    }
    case 'gather':
    case 'take_along_axis': {
      outSizes = lookupSizes.map((s, d) => (d === dim ? size() : op === 'gather' ? 1 + Math.floor(next() * s) : s));
      inputs.push({ kind: 'data', sizes: lookupSizes, dtype }, { kind: 'index', sizes: outSizes, dtype: indexDtype, bound: lookupSizes[dim] as number });
      break;
    }
    case 'select': {
      inputs.push({ kind: 'data', sizes: lookupSizes, dtype }, { kind: 'scalar', value: Math.floor(next() * (lookupSizes[dim] as number)) });
      outSizes = lookupSizes.filter((_, d) => d !== dim);
      break;
    }
    case 'embedding_fwd': {
      const idx = Array.from({ length: rank }, size);
      inputs.push({ kind: 'index', sizes: idx, dtype: indexDtype, bound: lookupSizes[0] as number }, { kind: 'data', sizes: lookupSizes, dtype });
      outSizes = [...idx, lookupSizes[1] as number];
      break;
    }
  }
  const consumer = outSizes.length > 0 && next() < 0.5;
  if (consumer) inputs.push({ kind: 'data', sizes: outSizes, dtype: 'Float' });
  const fusion = build(inputs, (_f, v) => {
    const a = tv(v[0]);
    let out: TensorView;
    switch (op) {
      case 'index_select':
        out = indexSelect(a, dim, tv(v[1]));
        break;
      case 'gather':
        out = gather(a, dim, tv(v[1]));
        break;
      case 'take_along_axis':
        out = takeAlongAxis(a, tv(v[1]), dim);
        break;
      case 'select':
        out = select(a, dim, v[1] as never);
        break;
      case 'embedding_fwd':
        out = embeddingFwd(a, tv(v[1]));
        break;
    }
    return consumer ? (mul(out, tv(v[v.length - 1])) as TensorView) : out;
  });
  return { name: `random_${id}_${op}_${dtype}_dim${dim}_[${outSizes.join('x')}]${consumer ? '_mul' : ''}`, fusion, inputs };
}
