// GPU check of indexed loads (not a vitest suite: it needs a GPU).
//
//   node tools/gpu-bundle.mjs tsfuser-indexing-suite && (on the GPU host) bash gpu-bundle/run.sh tsfuser-indexing-suite [--random N] [--random-scatter M] [--seed S] [--trap embedding|scatter]
//
// 1. Every indexing fixture (test-support's indexingCases: index_select along dims 0 and 1,
//    gather with a smaller index, take_along_axis, select at a scalar input and at -1, embedding
//    lookups) at two sizes, under four pointwise schedules (the heuristic, 1-D, 2-D, misaligned
//    inputs), launched into poisoned outputs and compared with the reference evaluator: loads
//    copy elements, so every element must be equal (consumers within the dtype's tolerance).
// 2. N seeded random indexed-load fusions (randomIndexingCase) and an index_select feeding a sum
//    (two segments) through FusionExecutorCache with the default registry, as users run them.
// 3. scatter and index_put_accumulate (scatter-cases.ts): the scatter fixtures at two sizes and
//    M (60) random scatter fusions through FusionExecutorCache (copy of self, then the greedy
//    scatter kernel with stores or atomic adds), against the reference.
// 4. Timing: embedding lookup of 8192 tokens in a [128256, 4096] bf16 table against the copy
//    bandwidth; index_put_accumulate of 8192 rows into that table (its copy included).
// 5. Last (it leaves the CUDA context unusable, as PyTorch's device-side assert does): an
//    embedding with one token id = num_embeddings (or, with --trap scatter, a scatter index =
//    size) must fail the launch with a CUDA error (the kernel's __trap()), never return values
//    read or written outside a tensor. The error is printed.
// Prints a table and `N passed, M failed`; exits 1 on any failure.

import { evaluate, HostTensor, indexSelect, makeTensor, sum, Fusion, type EvalValue } from '@tsfuser/fusion-ir';
import { DeviceContext, isAvailable, l2Flusher, Tensor, timeDevice } from '@tsfuser/device';
import { FusionExecutor, FusionExecutorCache, runtimeInfoFor, schedulerDevice, type ExecutorArgument } from '@tsfuser/runtime';
import { PointwiseScheduler, SchedulerRegistry, type PointwiseOverrides } from '@tsfuser/scheduler';
import { compareOutput, indexingCases, indexingInputs, randomIndexingCase, seededRandom, type IndexingCase } from '@tsfuser/test-support';
import { toDeviceInput, type DeviceInput } from '../src/bench/device-inputs.js';
import { copyBandwidth } from '../src/bench/timing.js';
import { runScatterCases, scatterOutOfRange, timeIndexPutAccumulate } from './scatter-cases.js';

interface Row {
  name: string;
  ok: boolean;
  detail: string;
}

const VARIANTS: { name: string; overrides: PointwiseOverrides; misalign: boolean }[] = [
  { name: 'heuristic', overrides: {}, misalign: false },
  { name: '1D bdimx=128 unroll=1', overrides: { breakPoint: 0, bdimx: 128, unroll: 1 }, misalign: false },
  { name: '2D bdimx=32 unroll=4', overrides: { breakPoint: 1, bdimx: 32, unroll: 4 }, misalign: false },
  { name: 'heuristic, misaligned inputs', overrides: {}, misalign: true },
];

function argOf(name: string, fallback: number): number {
  const k = process.argv.indexOf(name);
  const v = k >= 0 ? Number(process.argv[k + 1]) : fallback;
  if (!Number.isInteger(v) || v < 0) throw new Error(`${name} takes a non-negative integer`);
  return v;
}

/** One fixture under one pointwise schedule, launched by FusionExecutor into poisoned outputs. */
function runVariant(device: DeviceContext, c: IndexingCase, v: (typeof VARIANTS)[number], inputs: readonly EvalValue[], want: readonly HostTensor[]): void {
  const uploaded: DeviceInput[] = [];
  const outputs: Tensor[] = [];
  try {
    const args: ExecutorArgument[] = inputs.map((x) => {
      if (!(x instanceof HostTensor)) return Number(x);
      const d = toDeviceInput(device, x, v.misalign);
      uploaded.push(d);
      return d.tensor;
    });
    const info = runtimeInfoFor(c.fusion, args, schedulerDevice(device.properties));
    const exec = FusionExecutor.compile(device, c.fusion, info, { registry: new SchedulerRegistry([new PointwiseScheduler(v.overrides)]) });
    for (const w of want) {
      const t = Tensor.emptyDevice(device, w.dtype, w.sizes);
      t.poison();
      outputs.push(t);
    }
    exec.launch([...args.map((a) => (a instanceof Tensor ? a.asKernelArgument() : a)), ...outputs.map((o) => o.asKernelArgument())]);
    device.synchronize();
    outputs.forEach((o, k) => compareOutput(want[k] as HostTensor, o.toHost(), `output ${k}`));
  } finally {
    for (const o of outputs) o.dispose();
    for (const u of uploaded) u.owner.dispose();
  }
}

/** A fusion through FusionExecutorCache (default registry, segmentation) against the reference. */
function runCached(device: DeviceContext, fusion: Fusion, inputs: readonly EvalValue[]): string {
  const want = evaluate(fusion, inputs) as HostTensor[];
  const owned: Tensor[] = [];
  const args: ExecutorArgument[] = inputs.map((x) => {
    if (!(x instanceof HostTensor)) return Number(x);
    const t = Tensor.fromHost(x).toDevice(device);
    owned.push(t);
    return t;
  });
  const cache = new FusionExecutorCache(fusion, device, { poisonOutputs: true });
  try {
    const outs = cache.runFusion(args);
    device.synchronize();
    // Sums run in another order than the float64 reference: a relative 1e-4 is far below a lost or doubled row.
    want.forEach((w, i) => compareOutput(w, (outs[i] as Tensor).toHost(), `output ${i}`, w.dtype === 'Float' ? new Float64Array(w.numel).fill(1e-4 * Math.sqrt(w.numel)) : undefined));
    for (const o of outs) o.dispose();
    return `${cache.stats.kernels} kernel(s)`;
  } finally {
    for (const t of owned) t.dispose();
  }
}

function embeddingFusion(): Fusion {
  const f = new Fusion();
  const ids = makeTensor(f, { shape: [-1], dtype: 'Int' });
  const table = makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' });
  f.addInput(ids);
  f.addInput(table);
  f.addOutput(indexSelect(table, 0, ids));
  return f;
}

/** embedding lookup: 8192 ids into a [128256, 4096] bf16 table (index_select of rows, as embedding_fwd lowers). */
function timeEmbedding(device: DeviceContext, rows: Row[]): void {
  const [tokens, vocab, hidden] = [8192, 128256, 4096];
  const next = seededRandom(7);
  const ids = Tensor.fromHost(HostTensor.fromValues('Int', [tokens], Array.from({ length: tokens }, () => BigInt(Math.floor(next() * vocab))))).toDevice(device);
  const table = Tensor.emptyDevice(device, 'BFloat16', [vocab, hidden]);
  table.poison();
  const out = Tensor.emptyDevice(device, 'BFloat16', [tokens, hidden]);
  const flusher = l2Flusher(device);
  try {
    const fusion = embeddingFusion();
    const exec = FusionExecutor.compile(device, fusion, runtimeInfoFor(fusion, [ids, table], schedulerDevice(device.properties)));
    const values = [ids.asKernelArgument(), table.asKernelArgument(), out.asKernelArgument()];
    const ms = timeDevice(device, flusher, () => exec.launch(values), 30);
    const bytes = 2 * tokens * hidden * 2 + tokens * 8;
    const gbs = bytes / (ms * 1e-3) / 1e9;
    const copyGbs = copyBandwidth(device, flusher, 10);
    rows.push({
      name: `timing: embedding lookup ${tokens} tokens, [${vocab}, ${hidden}] bf16`,
      ok: true,
      detail: `${(ms * 1000).toFixed(1)} µs, ${gbs.toFixed(0)} GB/s (${((100 * gbs) / copyGbs).toFixed(0)}% of copy ${copyGbs.toFixed(0)} GB/s), vectorize ${exec.kernel.vectorizeFactor}, grid ${exec.kernel.launch.grid.join('x')} block ${exec.kernel.launch.block.join('x')}`,
    });
  } finally {
    flusher.dispose();
    out.dispose();
    table.dispose();
    ids.dispose();
  }
}

/** An id = num_embeddings must fail the launch (device-side trap), not read past the table. */
function outOfRange(device: DeviceContext, rows: Row[]): void {
  const name = 'out-of-range id traps (device-side check)';
  const fusion = embeddingFusion();
  const ids = Tensor.fromHost(HostTensor.fromValues('Int', [4], [0n, 1n, 100n, 2n])).toDevice(device);
  const table = Tensor.fromHost(HostTensor.fromValues('BFloat16', [100, 8], new Array<number>(800).fill(1))).toDevice(device);
  const out = Tensor.emptyDevice(device, 'BFloat16', [4, 8]);
  try {
    const exec = FusionExecutor.compile(device, fusion, runtimeInfoFor(fusion, [ids, table], schedulerDevice(device.properties)));
    exec.launch([ids.asKernelArgument(), table.asKernelArgument(), out.asKernelArgument()]);
    device.synchronize();
    rows.push({ name, ok: false, detail: 'the launch succeeded: an index outside the table was not caught' });
  } catch (error) {
    rows.push({ name, ok: true, detail: `launch failed as expected: ${(error as Error).message.split('\n')[0] ?? ''}` });
  }
}

function main(): void {
  const availability = isAvailable();
  if (!availability.available) {
    console.log(`no GPU: ${availability.reason ?? 'unknown reason'}`);
    process.exitCode = 1;
    return;
  }
  const randomCount = argOf('--random', 100);
  const randomScatter = argOf('--random-scatter', 60);
  const trapIndex = process.argv.indexOf('--trap');
  const trap = trapIndex >= 0 ? process.argv[trapIndex + 1] : 'embedding';
  if (trap !== 'embedding' && trap !== 'scatter') throw new Error('--trap takes embedding or scatter');
  const seed = argOf('--seed', 20261124);
  const device = DeviceContext.create(0);
  const rows: Row[] = [];
  for (const [r, k] of [[37, 131], [1024, 1000]] as const) {
    indexingCases(r, k).forEach((c, i) => {
      const inputs = indexingInputs(c, seededRandom(seed + i)) as EvalValue[];
      const want = evaluate(c.fusion, inputs) as HostTensor[];
      const rank = want[0]?.rank ?? 0;
      for (const v of VARIANTS.filter((x) => (x.overrides.breakPoint ?? 0) < rank)) {
        const name = `${c.name} [${r}, ${k}] ${v.name}`;
        try {
          runVariant(device, c, v, inputs, want);
          rows.push({ name, ok: true, detail: 'ok' });
        } catch (error) {
          rows.push({ name, ok: false, detail: `${(error as Error).name}: ${(error as Error).message.split('\n')[0] ?? ''}` });
        }
      }
    });
  }
  const next = seededRandom(seed);
  for (let k = 0; k < randomCount; k += 1) {
    const c = randomIndexingCase(next, k);
    const inputs = indexingInputs(c, next) as EvalValue[];
    try {
      rows.push({ name: `${c.name} (seed ${seed})`, ok: true, detail: runCached(device, c.fusion, inputs) });
    } catch (error) {
      rows.push({ name: `${c.name} (seed ${seed})`, ok: false, detail: (error as Error).message.split('\n')[0] ?? '' });
    }
  }
  try {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    const i = makeTensor(f, { shape: [-1], dtype: 'Int' });
    f.addInput(x);
    f.addInput(i);
    f.addOutput(sum(indexSelect(x, 0, i), [1]));
    const c: IndexingCase = { name: 'index_select_sum', fusion: f, inputs: [{ kind: 'data', sizes: [300, 1000], dtype: 'Float' }, { kind: 'index', sizes: [77], dtype: 'Int', bound: 300 }] };
    const detail = runCached(device, f, indexingInputs(c, seededRandom(seed)) as EvalValue[]);
    rows.push({ name: 'index_select [300, 1000] → sum (two segments)', ok: detail.startsWith('2 '), detail });
  } catch (error) {
    rows.push({ name: 'index_select → sum', ok: false, detail: (error as Error).message.split('\n')[0] ?? '' });
  }
  runScatterCases(device, rows, seed, randomScatter);
  try {
    timeEmbedding(device, rows);
  } catch (error) {
    rows.push({ name: 'timing: embedding lookup', ok: false, detail: (error as Error).message.split('\n')[0] ?? '' });
  }
  try {
    timeIndexPutAccumulate(device, rows);
  } catch (error) {
    rows.push({ name: 'timing: index_put_accumulate', ok: false, detail: (error as Error).message.split('\n')[0] ?? '' });
  }
  if (trap === 'scatter') scatterOutOfRange(device, rows);
  else outOfRange(device, rows);
  const failed = rows.filter((x) => !x.ok);
  for (const x of failed) console.log(`FAIL ${x.name}: ${x.detail}`);
  console.log('| case | result |\n|---|---|');
  for (const x of rows.filter((y) => y.name.startsWith('timing') || y.name.startsWith('out-of-range') || y.name.startsWith('index_select ['))) console.log(`| ${x.name} | ${x.detail} |`);
  console.log(`${rows.length - failed.length} passed, ${failed.length} failed`);
  process.exitCode = failed.length === 0 ? 0 : 1;
}

main();
