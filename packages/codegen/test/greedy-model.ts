// A host model of the greedy kernels (emit/greedy/kernels.ts), for tests: it runs a kernel's
// algorithm with the kernel's parameters — the same chunks, per-thread items, warp shuffle scan
// steps, warp-total scan, carry, bitonic compare-exchange network with the same order and padding,
// per-lane top-k lists and butterfly merge — in the kernel's accumulation type (Float math through
// Math.fround, Int32 wrapping, Int64 as BigInt). The kernel simulator interprets kernel IR, which
// greedy kernels do not have; this model is their counterpart, checked against the reference
// evaluator, while nvcc checks the CUDA text and the GPU suite the kernels themselves.
import { contiguousStrides, HostTensor, writeStorage, type DataType } from '@tsfuser/fusion-ir';
import type { GreedyBitonicKernel, GreedyParams, GreedyScanKernel, GreedySerialScanKernel, GreedyWarpTopKKernel } from '@tsfuser/scheduler';

type Acc = number | bigint;

function accKind(d: DataType): 'float' | 'double' | 'int32' | 'int64' {
  if (d === 'Double') return 'double';
  if (d === 'Int32') return 'int32';
  if (d === 'Int') return 'int64';
  return 'float';
}

function combiner(op: GreedyScanKernel['opType'], d: DataType): (a: Acc, b: Acc) => Acc {
  const kind = accKind(d);
  const sel = (a: Acc, b: Acc, gt: boolean): Acc => {
    const nan = typeof a === 'number' && Number.isNaN(a);
    return nan || (gt ? a > b : a < b) ? a : b;
  };
  switch (op) {
    case 'add':
      if (kind === 'float') return (a, b) => Math.fround((a as number) + (b as number));
      if (kind === 'double') return (a, b) => (a as number) + (b as number);
      if (kind === 'int32') return (a, b) => ((a as number) + (b as number)) | 0;
      return (a, b) => BigInt.asIntN(64, (a as bigint) + (b as bigint));
    case 'mul':
      if (kind === 'float') return (a, b) => Math.fround((a as number) * (b as number));
      if (kind === 'double') return (a, b) => (a as number) * (b as number);
      if (kind === 'int32') return (a, b) => Math.imul(a as number, b as number);
      return (a, b) => BigInt.asIntN(64, (a as bigint) * (b as bigint));
    case 'max':
      return (a, b) => sel(a, b, true);
    case 'min':
      return (a, b) => sel(a, b, false);
    default: {
      const unreachable: never = op;
      throw new Error(`unknown scan op ${String(unreachable)}`);
    }
  }
}

function loadAcc(t: HostTensor, pos: number): Acc {
  if (t.dtype === 'Int') return t.get(pos) as bigint;
  const v = t.getNumber(pos);
  return t.dtype === 'Float' || t.dtype === 'Half' || t.dtype === 'BFloat16' ? Math.fround(v) : v;
}

function zero(d: DataType): Acc {
  return d === 'Int' ? 0n : 0;
}

/** Linear (row-major) position of element i of row `row` in a tensor of `sizes` along `dim`. */
function position(sizes: readonly number[], dim: number, row: number, i: number): number {
  let r = row;
  const idx = new Array<number>(sizes.length).fill(0);
  for (let d = sizes.length - 1; d >= 0; d -= 1) {
    if (d === dim) continue;
    const s = sizes[d] as number;
    idx[d] = r % s;
    r = Math.floor(r / s);
  }
  idx[dim] = i;
  const strides = contiguousStrides(sizes);
  return idx.reduce((acc, x, d) => acc + x * (strides[d] as number), 0);
}

/** The warp's inclusive Hillis-Steele scan (shfl_up by 1, 2, 4, 8, 16), lanes in lock step. */
function warpScan(vals: Acc[], f: (a: Acc, b: Acc) => Acc): Acc[] {
  let v = [...vals];
  for (let o = 1; o < 32; o *= 2) v = v.map((x, lane) => (lane >= o ? f(v[lane - o] as Acc, x) : x));
  return v;
}

function serialScanRow(p: GreedyParams, k: GreedySerialScanKernel, x: HostTensor, out: HostTensor, row: number): void {
  const f = combiner(k.opType, p.dtype);
  let carry: Acc = p.dtype === 'Int' ? BigInt(k.init) : accKind(p.dtype) === 'float' ? Math.fround(Number(k.init)) : Number(k.init);
  for (let i = 0; i < p.rowLength; i += 1) {
    carry = f(carry, loadAcc(x, position(x.sizes, p.dim, row, i)));
    writeStorage(out.dtype, out.data, position(out.sizes, p.dim, row, i), carry);
  }
}

function scanRow(p: GreedyParams, k: GreedyScanKernel, x: HostTensor, out: HostTensor, row: number): void {
  const f = combiner(k.opType, p.dtype);
  const n = p.rowLength;
  const tpr = k.threadsPerRow;
  const items = k.itemsPerThread;
  const init: Acc = p.dtype === 'Int' ? BigInt(k.init) : accKind(p.dtype) === 'float' ? Math.fround(Number(k.init)) : Number(k.init);
  let carry = init;
  for (let chunk = 0; chunk < n; chunk += tpr * items) {
    const xs: Acc[][] = [];
    for (let t = 0; t < tpr; t += 1) {
      const first = chunk + t * items;
      const local: Acc[] = [];
      for (let j = 0; j < items; j += 1) local.push(first + j < n ? loadAcc(x, position(x.sizes, p.dim, row, first + j)) : zero(p.dtype));
      for (let j = 1; j < items; j += 1) local[j] = f(local[j - 1] as Acc, local[j] as Acc);
      xs.push(local);
    }
    const incl: Acc[] = [];
    for (let w = 0; w < tpr / 32; w += 1) incl.push(...warpScan(xs.slice(w * 32, w * 32 + 32).map((l) => l[items - 1] as Acc), f));
    const prefix: (Acc | null)[] = incl.map((_, t) => (t % 32 > 0 ? (incl[t - 1] as Acc) : null));
    let total: Acc;
    if (tpr > 32) {
      const warps = tpr / 32;
      const totals = warpScan(Array.from({ length: 32 }, (_, l) => (l < warps ? (incl[l * 32 + 31] as Acc) : zero(p.dtype))), f);
      for (let t = 32; t < tpr; t += 1) {
        const w = totals[Math.floor(t / 32) - 1] as Acc;
        const before = prefix[t] ?? null;
        prefix[t] = before === null ? w : f(w, before);
      }
      total = totals[warps - 1] as Acc;
    } else {
      total = incl[31] as Acc;
    }
    for (let t = 0; t < tpr; t += 1) {
      const pre = prefix[t] ?? null;
      for (let j = 0; j < items; j += 1) {
        const i = chunk + t * items + j;
        if (i >= n) continue;
        const xj = (xs[t] as Acc[])[j] as Acc;
        const y = f(carry, pre === null ? xj : f(pre, xj));
        writeStorage(out.dtype, out.data, position(out.sizes, p.dim, row, i), y);
      }
    }
    carry = f(carry, total);
  }
}

/** nvfSortBefore: (ka, ia) before (kb, ib); index < 0 is padding. */
function before(desc: boolean, ka: Acc, ia: number, kb: Acc, ib: number): boolean {
  if (ia < 0) return false;
  if (ib < 0) return true;
  const an = typeof ka === 'number' && Number.isNaN(ka);
  const bn = typeof kb === 'number' && Number.isNaN(kb);
  if (an || bn) return an && bn ? ia < ib : desc ? an : bn;
  if (ka !== kb) return desc ? ka > kb : ka < kb; // -0 and 0 are equal, as in C++
  return ia < ib;
}

function rowKeys(p: GreedyParams, x: HostTensor, row: number): Acc[] {
  return Array.from({ length: p.rowLength }, (_, i) => loadAcc(x, position(x.sizes, p.dim, row, i)));
}

function bitonicRow(p: GreedyParams, k: GreedyBitonicKernel, x: HostTensor, row: number): number[] {
  const P = k.sortSize;
  const row0 = rowKeys(p, x, row);
  const keys: Acc[] = Array.from({ length: P }, (_, i) => (i < p.rowLength ? (row0[i] as Acc) : zero(p.dtype)));
  const idx = Array.from({ length: P }, (_, i) => (i < p.rowLength ? i : -1));
  for (let size = 2; size <= P; size *= 2) {
    for (let stride = size / 2; stride > 0; stride = Math.floor(stride / 2)) {
      for (let t = 0; t < P / 2; t += 1) {
        const i = 2 * t - (t & (stride - 1));
        const j = i + stride;
        const up = (i & size) === 0;
        const swap = up ? before(k.descending, keys[j] as Acc, idx[j] as number, keys[i] as Acc, idx[i] as number) : before(k.descending, keys[i] as Acc, idx[i] as number, keys[j] as Acc, idx[j] as number);
        if (swap) {
          [keys[i], keys[j]] = [keys[j] as Acc, keys[i] as Acc];
          [idx[i], idx[j]] = [idx[j] as number, idx[i] as number];
        }
      }
    }
  }
  return idx.slice(0, k.outputLength);
}

interface Entry {
  key: Acc;
  index: number;
}

function warpTopKRow(p: GreedyParams, k: GreedyWarpTopKKernel, x: HostTensor, row: number): number[] {
  const K = k.kPow2;
  const better = (a: Entry, b: Entry): boolean => before(k.largest, a.key, a.index, b.key, b.index);
  const keys = rowKeys(p, x, row);
  const lists: Entry[][] = Array.from({ length: 32 }, () => Array.from({ length: K }, () => ({ key: zero(p.dtype), index: -1 })));
  for (let lane = 0; lane < 32; lane += 1) {
    const l = lists[lane] as Entry[];
    for (let i = lane; i < p.rowLength; i += 32) {
      const e = { key: keys[i] as Acc, index: i };
      if (!better(e, l[K - 1] as Entry)) continue;
      l[K - 1] = e;
      for (let j = K - 1; j > 0; j -= 1) if (better(l[j] as Entry, l[j - 1] as Entry)) [l[j], l[j - 1]] = [l[j - 1] as Entry, l[j] as Entry];
    }
  }
  for (let offset = 16; offset > 0; offset >>= 1) {
    const prev = lists.map((l) => [...l]);
    for (let lane = 0; lane < 32; lane += 1) {
      const mine = prev[lane] as Entry[];
      const other = prev[lane ^ offset] as Entry[];
      const c = mine.map((e, j) => (better(e, other[K - 1 - j] as Entry) ? e : (other[K - 1 - j] as Entry)));
      for (let s = K / 2; s >= 1; s /= 2) {
        for (let j = 0; j < K; j += 1) if ((j & s) === 0 && better(c[j + s] as Entry, c[j] as Entry)) [c[j], c[j + s]] = [c[j + s] as Entry, c[j] as Entry];
      }
      lists[lane] = c;
    }
  }
  return (lists[0] as Entry[]).slice(0, k.k).map((e) => e.index);
}

/**
 * Runs the kernel `p` describes on input `x` (contiguous); returns the outputs by their fusion
 * output positions (values, indices), each contiguous.
 */
export function runGreedyModel(p: GreedyParams, x: HostTensor): Map<number, HostTensor> {
  const outs = new Map<number, HostTensor>();
  const k = p.kernel;
  if (k.kind === 'scatter') throw new Error('runGreedyModel: scatter kernels have their own model (scatter-model.ts)');
  const outLength = k.kind === 'scan' || k.kind === 'serial_scan' ? p.rowLength : k.kind === 'bitonic' ? k.outputLength : k.k;
  const outSizes = x.sizes.map((s, d) => (d === p.dim ? outLength : s));
  const values = p.valuesOutput === null ? null : HostTensor.empty(p.dtype, outSizes);
  const indices = p.indicesOutput === null ? null : HostTensor.empty('Int', outSizes);
  for (let row = 0; row < p.rows; row += 1) {
    if (k.kind === 'scan') {
      scanRow(p, k, x, values as HostTensor, row);
      continue;
    }
    if (k.kind === 'serial_scan') {
      serialScanRow(p, k, x, values as HostTensor, row);
      continue;
    }
    const order = k.kind === 'bitonic' ? bitonicRow(p, k, x, row) : warpTopKRow(p, k, x, row);
    order.forEach((pos, i) => {
      if (values !== null) writeStorage(p.dtype, values.data, position(outSizes, p.dim, row, i), x.get(position(x.sizes, p.dim, row, pos)));
      if (indices !== null) writeStorage('Int', indices.data, position(outSizes, p.dim, row, i), BigInt(pos));
    });
  }
  if (values !== null) outs.set(p.valuesOutput as number, values);
  if (indices !== null) outs.set(p.indicesOutput as number, indices);
  return outs;
}
