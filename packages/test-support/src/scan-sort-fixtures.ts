// Scan and sort fusions for codegen tests (greedy-kernel model, nvcc) and the GPU suite: every
// op, dtype and kernel shape (short rows sharing a block, long rows in several chunks, vectorized
// and strided rows, dims other than the innermost, warp top-k and bitonic sort), inputs with ties,
// NaN and infinities; a fusion with pointwise work around a cumsum (three segments); and random
// cases from a seed.
import {
  add,
  argsort,
  cast,
  Fusion,
  HostTensor,
  makeTensor,
  mul,
  scan,
  topk,
  type DataType,
  type ScanOpType,
} from '@tsfuser/fusion-ir';

export type ScanSortValues = 'normal' | 'ties' | 'ints' | 'small' | 'special';

export interface ScanSortCase {
  name: string;
  fusion: Fusion;
  sizes: number[];
  dtype: DataType;
  values: ScanSortValues;
}

export type ScanSortOp =
  | { op: 'scan'; scanOp: ScanOpType }
  | { op: 'argsort'; descending: boolean }
  | { op: 'topk'; k: number; largest: boolean; outputs?: 'both' | 'values' | 'indices' };

function build(dtype: DataType, rank: number, dim: number, o: ScanSortOp): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype });
  f.addInput(x);
  switch (o.op) {
    case 'scan':
      f.addOutput(scan(x, dim, o.scanOp));
      break;
    case 'argsort':
      f.addOutput(argsort(x, dim, o.descending, true));
      break;
    case 'topk': {
      const r = topk(x, o.k, dim, o.largest, true);
      if (o.outputs !== 'indices') f.addOutput(r.values);
      if (o.outputs !== 'values') f.addOutput(r.indices);
      break;
    }
    default: {
      const unreachable: never = o;
      throw new Error(`unknown op ${String(unreachable)}`);
    }
  }
  return f;
}

function c(name: string, dtype: DataType, sizes: number[], dim: number, o: ScanSortOp, values: ScanSortValues = 'normal'): ScanSortCase {
  return { name, fusion: build(dtype, sizes.length, dim, o), sizes, dtype, values };
}

const SCAN = (scanOp: ScanOpType): ScanSortOp => ({ op: 'scan', scanOp });

/** The fixed cases (small enough for the host model; the GPU suite runs them too). */
export function scanSortCases(): ScanSortCase[] {
  return [
    c('cumsum_Float_long_rows', 'Float', [5, 3000], 1, SCAN('add')),
    c('cumsum_Float_short_rows', 'Float', [7, 33], 1, SCAN('add')),
    c('cumsum_Float_special', 'Float', [4, 300], 1, SCAN('add'), 'special'),
    c('cumsum_Half', 'Half', [4, 1000], 1, SCAN('add')),
    c('cumsum_BFloat16_odd', 'BFloat16', [3, 517], -1, SCAN('add')),
    c('cumsum_Double', 'Double', [6, 300], 1, SCAN('add')),
    c('cumsum_Int32', 'Int32', [4, 2100], 1, SCAN('add'), 'ints'),
    c('cumsum_Int', 'Int', [3, 100], 1, SCAN('add'), 'ints'),
    c('cumsum_Float_dim0', 'Float', [40, 12], 0, SCAN('add')),
    c('cumsum_Float_middle_dim', 'Float', [3, 10, 5], 1, SCAN('add')),
    c('cumsum_Float_dim0_wide', 'Float', [40, 300], 0, SCAN('add')),
    c('cummin_Int_middle_dim_wide', 'Int', [2, 30, 200], 1, SCAN('min'), 'ints'),
    c('cumprod_Half_dim0_wide', 'Half', [20, 260], 0, SCAN('mul'), 'small'),
    c('cumprod_Float', 'Float', [4, 64], 1, SCAN('mul'), 'small'),
    c('cumprod_Int', 'Int', [3, 40], 1, SCAN('mul'), 'ints'),
    c('cummax_Float_special', 'Float', [5, 700], 1, SCAN('max'), 'special'),
    c('cummin_Half', 'Half', [3, 129], 1, SCAN('min')),
    c('cummax_Int32_dim0', 'Int32', [50, 3], 0, SCAN('max'), 'ints'),
    c('cummin_Double_long', 'Double', [2, 2500], 1, SCAN('min'), 'special'),
    c('argsort_Float_ties_asc', 'Float', [6, 100], 1, { op: 'argsort', descending: false }, 'ties'),
    c('argsort_Float_ties_desc', 'Float', [6, 100], 1, { op: 'argsort', descending: true }, 'ties'),
    c('argsort_Float_special', 'Float', [3, 64], 1, { op: 'argsort', descending: false }, 'special'),
    c('argsort_Half_4096', 'Half', [2, 4096], 1, { op: 'argsort', descending: true }),
    c('argsort_Int_desc', 'Int', [4, 33], 1, { op: 'argsort', descending: true }, 'ints'),
    c('argsort_Double_4096', 'Double', [1, 4096], 1, { op: 'argsort', descending: false }, 'special'),
    c('argsort_Double_dim0', 'Double', [20, 3], 0, { op: 'argsort', descending: false }),
    c('topk8_Float_256', 'Float', [16, 256], 1, { op: 'topk', k: 8, largest: true }),
    c('topk5_Float_special_smallest', 'Float', [4, 90], 1, { op: 'topk', k: 5, largest: false }, 'special'),
    c('topk3_Half_ties', 'Half', [5, 1000], 1, { op: 'topk', k: 3, largest: true }, 'ties'),
    c('topk20_Float_bitonic', 'Float', [4, 300], 1, { op: 'topk', k: 20, largest: true }, 'ties'),
    c('topk16_Int', 'Int', [6, 50], 1, { op: 'topk', k: 16, largest: false }, 'ints'),
    c('topk1_BFloat16_dim0', 'BFloat16', [40, 9], 0, { op: 'topk', k: 1, largest: true }),
    c('topk4_Float_values_only', 'Float', [3, 70], 1, { op: 'topk', k: 4, largest: true, outputs: 'values' }),
    c('topk4_Double_indices_only', 'Double', [3, 70], 1, { op: 'topk', k: 4, largest: false, outputs: 'indices' }, 'special'),
  ];
}

/** cast(cumsum(x * 2), Half) + 1 over rows: pointwise before and after a scan (three segments). */
export function cumsumWithPointwise(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype: 'Half' });
  f.addInput(x);
  const y = scan(mul(cast(x, 'Float'), 2), 1, 'add');
  f.addOutput(add(cast(y, 'Half'), 1));
  return f;
}

const SPECIALS = [NaN, Infinity, -Infinity, -0, 0];

/** Input values of a case (row-major), from `rand`. */
export function scanSortInput(dtype: DataType, sizes: readonly number[], values: ScanSortValues, rand: () => number): HostTensor {
  const n = sizes.reduce((a, b) => a * b, 1);
  const isInt = dtype === 'Int' || dtype === 'Int32';
  const out: (number | bigint)[] = [];
  for (let i = 0; i < n; i += 1) {
    let v: number;
    if (isInt || values === 'ints') v = Math.floor(rand() * 9) - 4;
    else if (values === 'ties') v = Math.floor(rand() * 4) * 0.5;
    else if (values === 'small') v = 0.75 + rand() * 0.5;
    else if (values === 'special' && rand() < 0.1) v = SPECIALS[Math.floor(rand() * SPECIALS.length)] as number;
    else v = (rand() - 0.5) * 8;
    out.push(dtype === 'Int' ? BigInt(v) : v);
  }
  return HostTensor.fromValues(dtype, sizes, out);
}

/** A random case: op, dtype, rank 1-3, dim, sizes (row lengths up to 5000) from `rand`. */
export function randomScanSortCase(rand: () => number, index: number): ScanSortCase {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const rank = 1 + Math.floor(rand() * 3);
  const dim = Math.floor(rand() * rank);
  const rowLength = pick([1, 2, 31, 32, 33, 127, 256, 513, 1000, 2048, 4096, 5000]);
  const sizes = Array.from({ length: rank }, (_, d) => (d === dim ? rowLength : 1 + Math.floor(rand() * (rank === 1 ? 1 : 6))));
  const kind = pick(['scan', 'scan', 'argsort', 'topk'] as const);
  let o: ScanSortOp;
  if (kind === 'scan') o = SCAN(pick(['add', 'mul', 'max', 'min'] as const));
  else if (kind === 'argsort') o = { op: 'argsort', descending: rand() < 0.5 };
  else o = { op: 'topk', k: 1 + Math.floor(rand() * Math.min(rowLength, rand() < 0.7 ? 16 : 40)), largest: rand() < 0.5 };
  if (o.op === 'argsort' && rowLength > 4096) o = SCAN('max');
  if (o.op === 'topk' && o.k > 16 && rowLength > 4096) o = { ...o, k: 16 };
  const dtype = pick(o.op === 'scan' && o.scanOp === 'mul' ? (['Float', 'Double'] as const) : (['Float', 'Double', 'Half', 'BFloat16', 'Int32', 'Int'] as const));
  const values = o.op === 'scan' && o.scanOp === 'mul' ? 'small' : pick(['normal', 'ties', 'special'] as const);
  const name = `random${index}_${o.op === 'scan' ? o.scanOp : o.op}_${dtype}_[${sizes.join('x')}]_dim${dim}`;
  return c(name, dtype, sizes, dim, o, values);
}

const ACC_EPS: Partial<Record<DataType, number>> = { Float: 2 ** -24, Half: 2 ** -24, BFloat16: 2 ** -24, Double: 2 ** -53 };
const OUT_EPS: Partial<Record<DataType, number>> = { Float: 2 ** -24, Half: 2 ** -11, BFloat16: 2 ** -8, Double: 2 ** -53 };

/**
 * The first difference between a kernel's outputs and the reference's for a scan or sort fusion
 * (outputs in fusion output order), or null. Float cumsum/cumprod may differ by the rounding of
 * another combination order: 64 accumulation epsilons of the prefix's magnitude (Σ|x| for sums,
 * |product|·length for products) plus two output roundings; everything else — max/min, integers,
 * sort orders, top-k values and indices — must be identical (NaN equals NaN).
 */
export function scanSortMismatch(fusion: Fusion, input: HostTensor, got: readonly HostTensor[], want: readonly HostTensor[]): string | null {
  const op = fusion.exprs().find((e) => e.kind === 'ScanOp' || e.kind === 'ArgsortOp' || e.kind === 'TopKOp');
  if (op === undefined) return 'the fusion has no scan or sort';
  const scanOp = op.kind === 'ScanOp' ? op.opType : null;
  const dtype = input.dtype;
  const floatScan = (scanOp === 'add' || scanOp === 'mul') && ACC_EPS[dtype] !== undefined;
  const xs = input.toNumbers();
  const sizes = input.sizes;
  const dim = op.kind === 'ScanOp' ? op.dim : 0;
  const inner = sizes.slice(dim + 1).reduce((a, b) => a * b, 1);
  const n = sizes[dim] ?? 1;
  for (let o = 0; o < want.length; o += 1) {
    const g = got[o];
    const w = want[o] as HostTensor;
    if (g === undefined) return `output ${o} is missing`;
    if (g.sizes.join(',') !== w.sizes.join(',')) return `output ${o} has sizes [${g.sizes.join(', ')}], reference [${w.sizes.join(', ')}]`;
    const gv = g.toNumbers();
    const wv = w.toNumbers();
    for (let i = 0; i < wv.length; i += 1) {
      const a = gv[i] as number;
      const b = wv[i] as number;
      if (a === b || (Number.isNaN(a) && Number.isNaN(b))) continue;
      if (floatScan && Number.isFinite(b)) {
        const idx = Math.floor(i / inner) % n;
        let mag = 0;
        if (scanOp === 'mul') mag = Math.abs(b) * (idx + 1);
        else for (let q = 0; q <= idx; q += 1) mag += Math.abs(xs[i - (idx - q) * inner] as number);
        const tol = (ACC_EPS[dtype] as number) * 64 * mag + (OUT_EPS[dtype] as number) * 2 * Math.abs(b);
        if (Math.abs(a - b) <= tol) continue;
      }
      return `output ${o}[${i}] = ${a}, reference ${b}`;
    }
  }
  return null;
}
