// GPU suite of CUDA graph replay through FusionExecutorCache (entry runtime-graph-replay):
//
//   bash gpu-bundle/run.sh runtime-graph-replay [--seed S] [--calls N]
//
// Each case runs one fusion on a cache without graphs and on one with `cudaGraph: true` over
// several calls whose input VALUES change between calls (so a replay that did not copy its inputs
// into the static buffers, or returned stale outputs, shows): call 1 normal, call 2 captured,
// calls 3… replayed; every output must equal the graph-free cache's bit for bit. Cases: a
// pointwise fusion of two outputs, a bf16 linear + relu (cuBLASLt GEMM between kernels), a causal
// bf16 sdpfa_fwd between kernels, graphStaticOutputs, and the refusal of an attention forward that
// outputs its philox seed. The pointwise, GEMM and attention cases run again with
// graphKeyedByPointers: the same input tensors every call, new values copied into them, the
// outputs disposed, so calls 3… replay the graph captured at the call's own addresses (no copy);
// each run must say so. Then host time per call of a launch-bound problem (pointwise [32, 32]):
// runFusion without and with graphs (static outputs, copies, keyed by pointers), enqueue only and
// with a synchronize per call. Ends "N passed, M failed".

import { add, cast, Fusion, HostTensor, linear, makeTensor, mul, relu, sdpfaFwd, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { DeviceContext, isAvailable, Tensor } from '@tsfuser/device';
import { FusionExecutorCache, type ExecutorCacheOptions } from '@tsfuser/runtime';
import { seededRandom } from '@tsfuser/test-support';

const argv = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const seed = flag('seed', Math.floor(Math.random() * 2 ** 31));
const CALLS = flag('calls', 2000);

function input(f: Fusion, rank: number, dtype: DataType): TensorView {
  const tv = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype });
  f.addInput(tv);
  return tv;
}

interface Case {
  name: string;
  fusion: Fusion;
  sizes: number[][];
  dtype: DataType;
  options?: ExecutorCacheOptions;
  /** Expected kind of the graph cache's 3rd call and later ('replayed', or 'normal' for a refusal). */
  expect: 'replayed' | 'normal';
}

function cases(): Case[] {
  const pw = new Fusion();
  {
    const [x, y] = [input(pw, 2, 'Float'), input(pw, 2, 'Float')];
    pw.addOutput(add(mul(x, 2), y));
    pw.addOutput(add(x, y));
  }
  const gemm = new Fusion();
  {
    const [x, w] = [input(gemm, 2, 'BFloat16'), input(gemm, 2, 'BFloat16')];
    gemm.addOutput(cast(mul(relu(linear(relu(x), w)), 0.5), 'BFloat16'));
  }
  const attn = new Fusion();
  {
    const [q, k, v] = [input(attn, 4, 'BFloat16'), input(attn, 4, 'BFloat16'), input(attn, 4, 'BFloat16')];
    attn.addOutput(relu(sdpfaFwd(cast(mul(q, 0.5), 'BFloat16'), k, v, { isCausal: true }).output));
  }
  const philox = new Fusion();
  {
    const [q, k, v] = [input(philox, 4, 'BFloat16'), input(philox, 4, 'BFloat16'), input(philox, 4, 'BFloat16')];
    const r = sdpfaFwd(q, k, v);
    philox.addOutput(r.output);
    philox.addOutput(r.philoxSeed);
  }
  return [
    { name: 'pointwise [257, 129] f32, 2 outputs', fusion: pw, sizes: [[257, 129], [257, 129]], dtype: 'Float', expect: 'replayed' },
    { name: 'pointwise, graphStaticOutputs', fusion: pw, sizes: [[64, 64], [64, 64]], dtype: 'Float', options: { graphStaticOutputs: true }, expect: 'replayed' },
    { name: 'relu -> linear (cuBLASLt) -> relu*0.5, bf16 129x64x96', fusion: gemm, sizes: [[129, 96], [64, 96]], dtype: 'BFloat16', expect: 'replayed' },
    { name: 'kernel -> causal sdpfa_fwd -> relu, bf16 [2,4,100,64]', fusion: attn, sizes: [[2, 4, 100, 64], [2, 4, 100, 64], [2, 4, 100, 64]], dtype: 'BFloat16', expect: 'replayed' },
    { name: 'sdpfa_fwd with its philox seed output (refused)', fusion: philox, sizes: [[1, 2, 32, 64], [1, 2, 32, 64], [1, 2, 32, 64]], dtype: 'BFloat16', expect: 'normal' },
  ];
}

function randomInputs(device: DeviceContext, c: Case, rand: () => number): Tensor[] {
  return c.sizes.map((s) => {
    const n = s.reduce((a, b) => a * b, 1);
    return Tensor.fromHost(HostTensor.fromValues(c.dtype, s, Array.from({ length: n }, () => Math.round((rand() * 2 - 1) * 64) / 64))).toDevice(device);
  });
}

function bits(t: Tensor): Uint8Array {
  const h = t.toHost();
  return new Uint8Array(h.data.buffer, h.data.byteOffset, h.data.byteLength).slice();
}

function runCase(device: DeviceContext, c: Case, rand: () => number): string | null {
  const plain = new FusionExecutorCache(c.fusion, device);
  const graphed = new FusionExecutorCache(c.fusion, device, { ...c.options, cudaGraph: true });
  const kinds: string[] = [];
  try {
    for (let call = 0; call < 5; call += 1) {
      const inputs = randomInputs(device, c, rand);
      const want = plain.runFusion(inputs);
      const got = graphed.runFusion(inputs);
      kinds.push(graphed.lastGraphRun()?.kind ?? 'none');
      device.synchronize();
      for (let o = 0; o < want.length; o += 1) {
        const [w, g] = [bits(want[o] as Tensor), bits(got[o] as Tensor)];
        const diff = w.findIndex((b, i) => b !== g[i]);
        if (w.length !== g.length || diff >= 0) return `call ${call + 1} (${kinds.at(-1) ?? ''}): output ${o} differs from the graph-free run at byte ${diff}`;
      }
      want.forEach((t) => t.dispose());
      if (c.options?.graphStaticOutputs !== true) got.forEach((t) => t.dispose());
      inputs.forEach((t) => t.dispose());
    }
    const expected = c.expect === 'replayed' ? ['normal', 'captured', 'replayed', 'replayed', 'replayed'] : ['normal', 'normal', 'normal', 'normal', 'normal'];
    if (kinds.join() !== expected.join()) return `runs ${kinds.join(', ')}, expected ${expected.join(', ')}`;
    const run = graphed.lastGraphRun();
    if (c.expect === 'normal') console.log(`    refused: ${run?.kind === 'normal' ? run.reason : '?'}`);
    return null;
  } finally {
    graphed.releaseGraphs();
  }
}

/**
 * A graphKeyedByPointers case: the same input tensors every call (new values copied in), the
 * graphed cache run first and its outputs disposed last, so its output blocks are free for it.
 */
function runKeyedCase(device: DeviceContext, c: Case, rand: () => number): string | null {
  const plain = new FusionExecutorCache(c.fusion, device);
  const graphed = new FusionExecutorCache(c.fusion, device, { cudaGraph: true, graphKeyedByPointers: true });
  const inputs = randomInputs(device, c, rand);
  const kinds: string[] = [];
  try {
    for (let call = 0; call < 5; call += 1) {
      const fresh = randomInputs(device, c, rand);
      fresh.forEach((t, i) => device.copyDeviceToDevice((inputs[i] as Tensor).dataPtr, t.dataPtr, t.storageBytes));
      fresh.forEach((t) => t.dispose());
      const got = graphed.runFusion(inputs);
      const run = graphed.lastGraphRun();
      kinds.push(`${run?.kind ?? 'none'}${run !== null && 'keyedByPointers' in run ? ' at pointers' : ''}`);
      const want = plain.runFusion(inputs);
      device.synchronize();
      for (let o = 0; o < want.length; o += 1) {
        const [w, g] = [bits(want[o] as Tensor), bits(got[o] as Tensor)];
        const diff = w.findIndex((b, i) => b !== g[i]);
        if (w.length !== g.length || diff >= 0) return `call ${call + 1} (${kinds.at(-1) ?? ''}): output ${o} differs from the graph-free run at byte ${diff}`;
      }
      want.forEach((t) => t.dispose());
      got.forEach((t) => t.dispose());
    }
    const expected = ['normal', 'captured at pointers', 'replayed at pointers', 'replayed at pointers', 'replayed at pointers'];
    if (kinds.join() !== expected.join()) return `runs ${kinds.join(', ')}, expected ${expected.join(', ')}`;
    return null;
  } finally {
    graphed.releaseGraphs();
    inputs.forEach((t) => t.dispose());
  }
}

function hostTimes(device: DeviceContext, rand: () => number): void {
  const c = cases()[0] as Case;
  const small = { ...c, sizes: [[32, 32], [32, 32]] };
  const inputs = randomInputs(device, small, rand);
  const rows: [string, FusionExecutorCache][] = [
    ['runFusion', new FusionExecutorCache(c.fusion, device)],
    ['runFusion cudaGraph (outputs copied)', new FusionExecutorCache(c.fusion, device, { cudaGraph: true })],
    ['runFusion cudaGraph (static outputs)', new FusionExecutorCache(c.fusion, device, { cudaGraph: true, graphStaticOutputs: true })],
    ['runFusion cudaGraph (keyed by pointers)', new FusionExecutorCache(c.fusion, device, { cudaGraph: true, graphKeyedByPointers: true })],
  ];
  console.log(`host time per call, pointwise [32, 32] f32 (median of 5 loops of ${CALLS} calls):`);
  for (const [label, cache] of rows) {
    for (const sync of [false, true]) {
      const loops: number[] = [];
      for (let i = 0; i < 200; i += 1) cache.runFusion(inputs).forEach((t) => t.dispose());
      device.synchronize();
      for (let r = 0; r < 5; r += 1) {
        const t0 = performance.now();
        for (let i = 0; i < CALLS; i += 1) {
          cache.runFusion(inputs).forEach((t) => t.dispose());
          if (sync) device.synchronize();
        }
        device.synchronize();
        loops.push(((performance.now() - t0) * 1000) / CALLS);
      }
      loops.sort((a, b) => a - b);
      console.log(`  ${label.padEnd(40)} ${sync ? 'synchronized each call' : 'enqueue only          '} ${(loops[2] as number).toFixed(2).padStart(7)} µs/call`);
    }
    cache.releaseGraphs();
  }
}

const availability = isAvailable();
if (!availability.available) {
  console.log(`runtime-graph-replay: no GPU (${availability.reason ?? 'unavailable'}); nothing to run`);
  process.exitCode = 1;
} else {
  console.log(`runtime-graph-replay: seed ${seed}`);
  const device = DeviceContext.create();
  const rand = seededRandom(seed);
  let passed = 0;
  let failed = 0;
  const all = cases();
  const keyed = all.filter((c) => c.expect === 'replayed' && c.options === undefined).map((c) => ({ ...c, name: `${c.name}, keyed by pointers` }));
  for (const [c, keyedCase] of [...all.map((x) => [x, false] as const), ...keyed.map((x) => [x, true] as const)]) {
    let error: string | null;
    try {
      error = keyedCase ? runKeyedCase(device, c, rand) : runCase(device, c, rand);
    } catch (e) {
      error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    }
    if (error === null) passed += 1;
    else failed += 1;
    console.log(`${error === null ? 'PASS' : 'FAIL'} ${c.name}${error === null ? '' : `: ${error}`}`);
  }
  try {
    hostTimes(device, rand);
  } catch (e) {
    failed += 1;
    console.log(`FAIL host times: ${e instanceof Error ? e.message : String(e)}`);
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
  device.dispose();
}
