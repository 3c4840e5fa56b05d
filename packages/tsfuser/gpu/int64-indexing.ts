// 64-bit indexing on the GPU (needs a GPU with ≥ 16 GB; not a vitest suite).
//
//   bash gpu-bundle/run.sh tsfuser-int64-indexing [--rows R] [--seed S]
//
// A fusion over more than 2^31 elements must index with int64 (scheduler index-type.ts). Two
// fusions over 3·2^30 BFloat16 elements (6 GiB) by default:
//   pointwise   out[r, c] = a[r] + b[c]        a: [R, 1], b: [1, 1024] → out: [R, 1024] BFloat16
//   reduction   rowSum[r] = Σ_c float(out[r, c])   (reads the 6 GiB output back as an input)
// Checked in full against a reference computed in chunks: every a[r] is drawn from 61 distinct
// values (independently per row, so a row written to the wrong place shows), the reference
// evaluator computes the 61 × 1024 distinct results once, and each downloaded chunk of the
// output is compared bit for bit with them. Outputs are poisoned before the kernels run, so an
// element a kernel never writes shows too. Last line: `N passed, M failed`.

import { add, cast, evaluate, Fusion, HostTensor, makeTensor, sum } from '@tsfuser/fusion-ir';
import { DeviceContext, isAvailable, Tensor } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { Random } from '../src/bench/device-inputs.js';

const flag = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

const COLUMNS = 1024;
const DISTINCT = 61;
const CHUNK_ROWS = 1 << 16;

function pointwiseFusion(): Fusion {
  const f = new Fusion();
  const a = makeTensor(f, { shape: [-1, 1], dtype: 'BFloat16' });
  const b = makeTensor(f, { shape: [1, -1], dtype: 'BFloat16' });
  f.addInput(a);
  f.addInput(b);
  f.addOutput(add(a, b));
  return f;
}

function rowSumFusion(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' });
  f.addInput(x);
  f.addOutput(sum(cast(x, 'Float'), [1]));
  return f;
}

/** The index types of the kernels a cache compiles, read from their scheduler_params dumps. */
function watchIndexTypes(cache: FusionExecutorCache): string[] {
  const types: string[] = [];
  cache.setDumps(new Set(['scheduler_params']), (text) => {
    const m = /Index type: (\S+)/.exec(text);
    if (m !== null) types.push(m[1] as string);
  });
  return types;
}

/** BFloat16 bit patterns of `values` (rounded by the evaluator's own conversion). */
function bf16Bits(values: readonly number[]): Uint16Array {
  return HostTensor.fromValues('BFloat16', [values.length], values).data as Uint16Array;
}

function main(): void {
  const availability = isAvailable();
  if (!availability.available) {
    console.log(`GPU unavailable: ${availability.reason ?? 'unknown'}`);
    console.log('0 passed, 1 failed');
    process.exitCode = 1;
    return;
  }
  const seed = flag('seed', Date.now() % 1_000_000);
  const rows = flag('rows', 3 * 2 ** 20);
  const rng = new Random(seed);
  const device = DeviceContext.create(0);
  const lines: string[] = [];
  let passed = 0;
  let failed = 0;
  const record = (name: string, work: () => string): void => {
    const t0 = performance.now();
    try {
      lines.push(`passed ${name}: ${work()} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
      passed += 1;
    } catch (error) {
      lines.push(`FAILED ${name}: ${(error as Error).message}`);
      failed += 1;
    }
  };

  // Inputs: 61 distinct row values, 1024 column values.
  const distinctBits = bf16Bits(Array.from({ length: DISTINCT }, () => rng.normal() * 4));
  const columnBits = bf16Bits(Array.from({ length: COLUMNS }, () => rng.normal()));
  const rowChoice = new Uint8Array(rows);
  const aBits = new Uint16Array(rows);
  for (let r = 0; r < rows; r += 1) {
    const k = Math.floor(rng.uniform() * DISTINCT) % DISTINCT;
    rowChoice[r] = k;
    aBits[r] = distinctBits[k] as number;
  }
  // Reference for the distinct rows (the evaluator's rounding), and each one's row sum.
  const pointwise = pointwiseFusion();
  const distinctA = new HostTensor('BFloat16', [DISTINCT, 1], [1, 1], distinctBits);
  const columns = new HostTensor('BFloat16', [1, COLUMNS], [COLUMNS, 1], columnBits);
  const expectedRows = evaluate(pointwise, [distinctA, columns])[0] as HostTensor;
  const expectedBits = new Uint16Array(expectedRows.toFloat64Array().length);
  expectedBits.set(bf16Bits([...expectedRows.toFloat64Array()]));
  const rowSums = evaluate(rowSumFusion(), [expectedRows])[0] as HostTensor;
  const expectedSums = rowSums.toFloat64Array();
  const absSums = evaluate(rowSumFusion(), [new HostTensor('BFloat16', [DISTINCT, COLUMNS], [COLUMNS, 1], bf16Bits([...expectedRows.toFloat64Array()].map(Math.abs)))])[0] as HostTensor;
  const absoluteSums = absSums.toFloat64Array();

  const a = Tensor.from(aBits, [rows, 1], 'BFloat16').toDevice(device);
  const b = Tensor.from(columnBits, [1, COLUMNS], 'BFloat16').toDevice(device);
  let out: Tensor | undefined;
  record(`pointwise [${rows}, ${COLUMNS}] BFloat16 (${((rows * COLUMNS) / 2 ** 30).toFixed(2)}·2^30 elements)`, () => {
    const cache = new FusionExecutorCache(pointwise, device, { poisonOutputs: true });
    const indexTypes = watchIndexTypes(cache);
    const result = cache.runFusion([a, b]);
    out = result[0] as Tensor;
    const chunk = new Uint16Array(CHUNK_ROWS * COLUMNS);
    let bad = 0;
    let first = '';
    for (let r0 = 0; r0 < rows; r0 += CHUNK_ROWS) {
      const n = Math.min(CHUNK_ROWS, rows - r0);
      device.copyDeviceToHost(chunk, out.dataPtr + BigInt(r0 * COLUMNS * 2), { byteCount: n * COLUMNS * 2 });
      for (let r = 0; r < n; r += 1) {
        const base = (rowChoice[r0 + r] as number) * COLUMNS;
        const at = r * COLUMNS;
        for (let c = 0; c < COLUMNS; c += 1) {
          if (chunk[at + c] !== expectedBits[base + c]) {
            bad += 1;
            if (first === '') first = ` first at [${r0 + r}, ${c}]: 0x${(chunk[at + c] as number).toString(16)} vs 0x${(expectedBits[base + c] as number).toString(16)}`;
          }
        }
      }
    }
    const kernels = indexTypes.join(',');
    if (bad > 0) throw new Error(`${bad} elements differ${first}`);
    if (!indexTypes.every((t) => t === 'int64_t') || indexTypes.length === 0) throw new Error(`index types [${kernels}], expected int64_t`);
    return `every element bit-exact, index type ${kernels}`;
  });

  record(`row sum of the [${rows}, ${COLUMNS}] BFloat16 tensor`, () => {
    if (out === undefined) throw new Error('the pointwise output is missing');
    const cache = new FusionExecutorCache(rowSumFusion(), device, { poisonOutputs: true });
    const indexTypes = watchIndexTypes(cache);
    const [sums] = cache.runFusion([out]);
    if (sums === undefined) throw new Error('no output');
    const host = sums.toHost().toFloat64Array();
    sums.dispose();
    let bad = 0;
    let first = '';
    const unit = 2 ** -24;
    for (let r = 0; r < rows; r += 1) {
      const k = rowChoice[r] as number;
      const expected = expectedSums[k] as number;
      const slack = Math.sqrt(COLUMNS) * unit * (absoluteSums[k] as number);
      if (!(Math.abs((host[r] as number) - expected) <= 1e-5 + 1e-4 * Math.abs(expected) + slack)) {
        bad += 1;
        if (first === '') first = ` first at ${r}: ${host[r]} vs ${expected}`;
      }
    }
    const kernels = indexTypes.join(',');
    if (bad > 0) throw new Error(`${bad} of ${rows} row sums differ${first}`);
    if (!indexTypes.every((t) => t === 'int64_t') || indexTypes.length === 0) throw new Error(`index types [${kernels}], expected int64_t`);
    return `all ${rows} row sums within tolerance, index type ${kernels}`;
  });
  (out as Tensor | undefined)?.dispose();
  a.dispose();
  b.dispose();
  device.dispose();
  for (const l of lines) console.log(l);
  console.log(`seed ${seed}`);
  console.log(`${passed} passed, ${failed} failed`);
  if (failed > 0) process.exitCode = 1;
}

try {
  main();
} catch (error: unknown) {
  console.error(error);
  console.log('0 passed, 1 failed');
  process.exitCode = 1;
}
