// GPU entry tsfuser-host-overhead: host time of a cached call on the real device (issue 38's
// host path: fd.execute <= 8 µs, FusionExecutorCache.runFusion <= 4 µs), PyTorch eager beside it.
//
//   bash gpu-bundle/run.sh tsfuser-host-overhead [--calls N] [--batches B] [--no-pytorch]
//   (a V8 profile: NODE_OPTIONS="--cpu-prof --cpu-prof-dir=$OUT" before it)
//
// Workloads: the bench's tiny one ((t0 + t1) * 3 on 2x4x8 f32, one kernel, one output) and the
// README's shape of work (two [32, 32] inputs, one kernel, two outputs). Each is timed through
// runFusion (a synchronous loop) and fd.execute (a loop of awaited calls) on the same inputs: a
// warm-up, then `--batches` loops of `--calls` calls, each loop ended by a synchronize (printed:
// the median and fastest loop's wall µs per call), then 50 loops of 200 calls timed before their
// synchronize ("enqueue-only": the host's cost alone; where the wall time is larger, the GPU's
// pace of back-to-back kernels, not the host, bounds the long loops).
// Then the same calls with CUDA graph replay of the cached plan (runFusion / fd.execute with
// cudaGraph: inputs copied into the graph's static buffers, one graph launch, outputs copied out;
// with graphKeyedByPointers: the graph captured at the call's own addresses, replayed with no
// copy; and a cache with graphStaticOutputs, which returns views of the graph's outputs).
// Also the floor: one empty kernel launched straight through KernelFunction.launch (the addon and
// the driver, no tsfuser host path), and through a prepared launch (what a cached plan step uses). PyTorch eager (python3 with torch on the host) times the same
// (t0 + t1) * 3 (two kernels) and one add, as tools/bench/pytorch_bench.py --host-overhead does.
// The last line is one JSON object with every number. Every output is disposed inside the loop.

import { spawnSync } from 'node:child_process';
import { Tensor, type DeviceContext } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { createGpuBackend, FusionDefinition } from '../src/index.js';
import { tinyWorkload } from '../src/bench/workloads.js';

const argv = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const CALLS = flag('calls', 5000);
const BATCHES = flag('batches', 7);
const PYTORCH = !argv.includes('--no-pytorch');

interface Timing {
  wallMedian: number;
  wallMin: number;
  /** Median µs per call of short loops timed before their synchronize: the host's enqueue cost alone. */
  enqueueMedian: number;
}

function median(v: readonly number[]): number {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** Calls of one short loop: far below the launch queue's depth, so no launch waits for the GPU. */
const SHORT = 200;

async function loop(call: () => void | Promise<void>, awaited: boolean, n: number): Promise<void> {
  if (awaited) for (let i = 0; i < n; i += 1) await call();
  else for (let i = 0; i < n; i += 1) void call();
}

async function time(device: DeviceContext, call: () => void | Promise<void>, awaited: boolean): Promise<Timing> {
  await loop(call, awaited, 3000);
  device.synchronize();
  const wall: number[] = [];
  for (let b = 0; b < BATCHES; b += 1) {
    const t0 = performance.now();
    await loop(call, awaited, CALLS);
    device.synchronize();
    wall.push(((performance.now() - t0) * 1000) / CALLS);
  }
  const enqueue: number[] = [];
  for (let b = 0; b < 50; b += 1) {
    const t0 = performance.now();
    await loop(call, awaited, SHORT);
    enqueue.push(((performance.now() - t0) * 1000) / SHORT);
    device.synchronize();
  }
  return { wallMedian: median(wall), wallMin: Math.min(...wall), enqueueMedian: median(enqueue) };
}

function line(label: string, t: Timing): void {
  console.log(`${label.padEnd(46)} wall median ${t.wallMedian.toFixed(2).padStart(6)}  min ${t.wallMin.toFixed(2).padStart(6)}  enqueue-only ${t.enqueueMedian.toFixed(2).padStart(6)} µs/call`);
}

function deviceTensor(device: DeviceContext, sizes: readonly number[]): Tensor {
  const n = sizes.reduce((a, b) => a * b, 1);
  const data = Float32Array.from({ length: n }, (_, i) => (i % 7) - 3);
  return Tensor.from(data, sizes, 'Float').toDevice(device);
}

/** Two inputs, one pointwise kernel, two outputs (the README example's shape of work). */
function twoOutputs(): FusionDefinition {
  return FusionDefinition.build((d) => {
    const x = d.defineTensor({ symbolicSizes: [-1, -1], contiguous: [true, true], dtype: 'Float' });
    const y = d.defineTensor({ symbolicSizes: [-1, -1], contiguous: [true, true], dtype: 'Float' });
    d.addOutput(d.ops.add(d.ops.mul(x, d.defineConstant(2.0, 'Double')), y));
    d.addOutput(d.ops.add(x, y));
  });
}

/** One empty kernel launched through the device layer alone: the addon + driver floor. */
async function rawLaunch(device: DeviceContext): Promise<Timing> {
  const compiled = device.compile('extern "C" __global__ void empty_kernel(float* p) { if (p == nullptr && threadIdx.x == 1024) p[0] = 0.f; }', { name: 'empty_kernel.cu' });
  const module = device.loadModule(compiled.cubin);
  const fn = module.getFunction('empty_kernel');
  const args = new Uint8Array(8);
  const config = { grid: [1, 1, 1] as const, block: [64, 1, 1] as const };
  try {
    return await time(device, () => fn.launch(config, args), false);
  } finally {
    module.unload();
  }
}

/** The same empty kernel through a prepared launch (KernelFunction.prepare): the floor of a cached plan step; null with an addon built before it. */
async function preparedLaunch(device: DeviceContext): Promise<Timing | null> {
  const compiled = device.compile('extern "C" __global__ void empty_kernel(float* p) { if (p == nullptr && threadIdx.x == 1024) p[0] = 0.f; }', { name: 'empty_kernel.cu' });
  const module = device.loadModule(compiled.cubin);
  const args = new Uint8Array(8);
  try {
    const prepared = module.getFunction('empty_kernel').prepare({ grid: [1, 1, 1], block: [64, 1, 1] }, args);
    if (prepared === null) return null;
    return await time(device, () => prepared.launch(args), false);
  } finally {
    module.unload();
  }
}

const PYTORCH_SCRIPT = `
import json, statistics, time, torch
t0 = torch.randn(2, 4, 8, device="cuda"); t1 = torch.randn(2, 4, 8, device="cuda")
def timed(fn, calls=${CALLS}, batches=${BATCHES}):
    for _ in range(3000): fn()
    torch.cuda.synchronize()
    per = []
    for _ in range(batches):
        s = time.perf_counter()
        for _ in range(calls): fn()
        torch.cuda.synchronize()
        per.append((time.perf_counter() - s) * 1e6 / calls)
    short = []
    for _ in range(50):
        s = time.perf_counter()
        for _ in range(${SHORT}): fn()
        short.append((time.perf_counter() - s) * 1e6 / ${SHORT})
        torch.cuda.synchronize()
    return {"wallMedian": statistics.median(per), "wallMin": min(per), "enqueueMedian": statistics.median(short)}
print(json.dumps({"torch": torch.__version__, "mulAdd": timed(lambda: (t0 + t1) * 3.0), "add": timed(lambda: t0 + t1)}))
`;

interface PytorchTimes {
  torch: string;
  mulAdd: { wallMedian: number; wallMin: number; enqueueMedian: number };
  add: { wallMedian: number; wallMin: number; enqueueMedian: number };
}

function pytorchEager(): PytorchTimes | string {
  const r = spawnSync('python3', ['-c', PYTORCH_SCRIPT], { encoding: 'utf8', timeout: 300_000 });
  const last = r.stdout?.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(last) as PytorchTimes;
  } catch {
    return `python3 failed (status ${String(r.status)}): ${(r.stderr ?? '').trim().split('\n').slice(-3).join(' | ')}`;
  }
}

async function main(): Promise<void> {
  const backend = createGpuBackend({ cubinDirectory: null });
  const a = backend.availability();
  if (!a.available) {
    console.log(`tsfuser-host-overhead: no GPU (${a.reason}); nothing to run`);
    process.exitCode = 1;
    return;
  }
  const device = backend.device(0);
  console.log(`tsfuser-host-overhead on ${device.properties.name}: ${BATCHES} loops of ${CALLS} calls per row, node ${process.version}`);
  const results: Record<string, Timing> = {};
  const row = (label: string, t: Timing): void => {
    results[label] = t;
    line(label, t);
  };
  row('raw launch (empty kernel, KernelFunction)', await rawLaunch(device));
  const prepared = await preparedLaunch(device);
  if (prepared === null) console.log('prepared launch: the addon predates prepareLaunch (rebuild it)');
  else row('prepared launch (empty kernel, PreparedLaunch)', prepared);

  const tiny = tinyWorkload().build();
  const tinyArgs = [deviceTensor(device, [2, 4, 8]), deviceTensor(device, [2, 4, 8])];
  const two = twoOutputs();
  const twoArgs = [deviceTensor(device, [32, 32]), deviceTensor(device, [32, 32])];
  for (const [name, fd, args] of [['tiny 2x4x8, 1 out', tiny, tinyArgs], ['pointwise 32x32, 2 out', two, twoArgs]] as const) {
    // One execute compiles; the executor cache is then the one fd.execute runs.
    for (const t of await fd.execute(args, { backend })) t.dispose();
    const cache = backend.executorCache(fd.fusionIr());
    row(`runFusion (${name})`, await time(device, () => {
      for (const t of cache.runFusion(args)) t.dispose();
    }, false));
    row(`fd.execute (${name})`, await time(device, async () => {
      for (const t of await fd.execute(args, { backend })) t.dispose();
    }, true));
    // CUDA graph replay of the same cached plan (issue 38: only a replay can get under the raw
    // launch): the warm-up's first graphed call captures, every timed call replays.
    const graphed = { cudaGraph: true } as const;
    row(`runFusion cudaGraph (${name})`, await time(device, () => {
      for (const t of cache.runFusion(args, graphed)) t.dispose();
    }, false));
    const replays = cache.lastGraphRun();
    if (replays?.kind !== 'replayed') console.log(`  (runFusion cudaGraph did not replay: ${replays?.kind === 'normal' ? replays.reason : String(replays?.kind)})`);
    const executeGraphed = { backend, cudaGraph: true } as const;
    row(`fd.execute cudaGraph (${name})`, await time(device, async () => {
      for (const t of await fd.execute(args, executeGraphed)) t.dispose();
    }, true));
    cache.releaseGraphs();
    // Keyed by pointers: the same inputs every call and the outputs disposed, so every timed call
    // replays the graph captured at its own addresses (no copy in or out).
    const keyed = { cudaGraph: true, graphKeyedByPointers: true } as const;
    row(`runFusion cudaGraph keyed by pointers (${name})`, await time(device, () => {
      for (const t of cache.runFusion(args, keyed)) t.dispose();
    }, false));
    const keyedRun = cache.lastGraphRun();
    if (keyedRun?.kind !== 'replayed' || !('keyedByPointers' in keyedRun)) console.log(`  (keyed by pointers did not replay at the pointers: ${JSON.stringify(keyedRun)})`);
    const executeKeyed = { backend, cudaGraph: true, graphKeyedByPointers: true } as const;
    row(`fd.execute cudaGraph keyed by pointers (${name})`, await time(device, async () => {
      for (const t of await fd.execute(args, executeKeyed)) t.dispose();
    }, true));
    cache.releaseGraphs();
    // Static outputs (graphStaticOutputs: views of the graph's outputs, no copy out): a cache of its own.
    const staticCache = new FusionExecutorCache(fd.fusionIr(), device, { cudaGraph: true, graphStaticOutputs: true });
    row(`runFusion cudaGraph static outputs (${name})`, await time(device, () => {
      staticCache.runFusion(args);
    }, false));
    staticCache.releaseGraphs();
  }
  for (const t of [...tinyArgs, ...twoArgs]) t.dispose();

  let pytorch: PytorchTimes | string | null = null;
  if (PYTORCH) {
    pytorch = pytorchEager();
    if (typeof pytorch === 'string') console.log(`PyTorch eager: ${pytorch}`);
    else {
      line(`PyTorch ${pytorch.torch} eager (t0 + t1) * 3, 2x4x8`, pytorch.mulAdd);
      line('PyTorch eager t0 + t1, 2x4x8', pytorch.add);
    }
  }
  console.log(JSON.stringify({ device: device.properties.name, calls: CALLS, batches: BATCHES, tsfuser: results, pytorchEager: pytorch }));
}

await main();
