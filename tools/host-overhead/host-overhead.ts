// Host overhead of a cached call (issue 38): µs per call of FusionExecutorCache.runFusion and of
// FusionDefinition.execute through the GPU backend, on a real DeviceContext over a native addon
// that does nothing (packages/tsfuser/test/null-addon-device.ts: the device layer's pool and launch code run, the C++ and the
// driver do not; `--device fake` runs the tsfuser tests' fake H100 instead, which has no pool)
// — so what is timed is the host path: keys, plan lookup, argument packing, output allocation — a pointwise fusion, two definitions of the test fixtures (one and two
// kernels), a graph replay and fd.execute. Each workload: a warm-up, then `--runs` timed loops of `--calls` calls,
// the median and the fastest loop's µs per call printed. Run with tools/host-overhead/run.mjs (bundles this file).
// Invariant: every call's outputs are disposed, so the pool hands the same blocks out again.

import { Fusion, add, makeTensor, mul, type TensorView } from '@tsfuser/fusion-ir';
import { Tensor, type DeviceContext } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { createGpuBackend, FusionDefinition } from 'tsfuser';
import { fakeDevice } from '../../packages/tsfuser/test/fake-device.js';
import { loadDefinition } from '../../packages/tsfuser/src/cli/load-definition.js';
import { planInputs } from '../../packages/tsfuser/src/cli/run-inputs.js';
import { nullAddonDevice } from '../../packages/tsfuser/test/null-addon-device.js';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const CALLS = flag('calls', 20000);
const RUNS = flag('runs', 5);
// `--only <text>`: time only the workloads whose label contains the text (profiles of one path).
const onlyAt = process.argv.indexOf('--only');
const ONLY = onlyAt >= 0 ? (process.argv[onlyAt + 1] ?? '') : '';
const wanted = (label: string): boolean => label.includes(ONLY);

function median(v: number[]): number {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/**
 * Median and minimum (the least disturbed loop on a shared machine) wall µs per call, and the
 * median process CPU µs per call (user + system: less sensitive to other processes on the cores).
 */
function report(label: string, perCall: readonly number[], cpuPerCall: readonly number[]): void {
  console.log(
    `${label.padEnd(44)} wall median ${median([...perCall]).toFixed(2).padStart(6)}  min ${Math.min(...perCall).toFixed(2).padStart(6)}  cpu median ${median([...cpuPerCall]).toFixed(2).padStart(6)} µs/call`,
  );
}

function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

function time(label: string, call: () => void): void {
  if (!wanted(label)) return;
  for (let i = 0; i < Math.min(CALLS, 5000); i += 1) call();
  const perCall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < RUNS; r += 1) {
    const c0 = cpuMicros();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i += 1) call();
    clearLaunches();
    perCall.push(Number(process.hrtime.bigint() - t0) / 1e3 / CALLS);
    cpu.push((cpuMicros() - c0) / CALLS);
  }
  report(label, perCall, cpu);
}

function input(f: Fusion): TensorView {
  const tv = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
  f.addInput(tv);
  return tv;
}

/** The README example's shape of work: two inputs, one pointwise kernel, two outputs. */
function pointwise(): Fusion {
  const f = new Fusion();
  const [x, y] = [input(f), input(f)];
  f.addOutput(add(mul(x, 2), y));
  f.addOutput(add(x, y));
  return f;
}

const DEVICE = process.argv.includes('--device') ? process.argv[process.argv.indexOf('--device') + 1] : 'null';
// The fake device records every launch: cleared after each call, so the timed loop does not grow it.
const fake = DEVICE === 'fake' ? fakeDevice() : null;
const device: DeviceContext = fake === null ? nullAddonDevice().device : fake.device;
const clearLaunches = (): void => {
  if (fake !== null) fake.launches.length = 0;
};
console.log(`host-overhead on ${device.properties.name}${fake === null ? '' : ' (fake device)'}, node ${process.version}`);
const args = [Tensor.emptyDevice(device, 'Float', [1024, 1024]), Tensor.emptyDevice(device, 'Float', [1024, 1024])];

const cache = new FusionExecutorCache(pointwise(), device, { concurrentSegments: false });
time('runFusion (pointwise, 2 in, 2 out)', () => {
  for (const t of cache.runFusion(args)) t.dispose();
});

// New input tensor objects every call (views of the same memory, as a pipeline passes one
// fusion's fresh outputs to the next): the layout key cannot be reused by identity.
time('runFusion (pointwise, new input views each call)', () => {
  const fresh = [(args[0] as Tensor).asStrided([1024, 1024], [1024, 1]), (args[1] as Tensor).asStrided([1024, 1024], [1024, 1])];
  for (const t of cache.runFusion(fresh)) t.dispose();
});

// A segmented plan (several kernels, intermediates in global memory), inputs already on the device.
for (const file of ['layer_norm_backward.py', 'issue785_gelu_bias_grad.py']) {
  const fixtures = `${process.cwd()}/test-fixtures/definitions`; // run.mjs runs from the repository root
  const { definition, inputs } = await loadDefinition(file, fixtures);
  const planned = planInputs(definition.inputs(), inputs, { seed: 0, cwd: fixtures }).inputs.map((a) => (a instanceof Tensor ? a.toDevice(device) : a));
  const segmented = new FusionExecutorCache(definition.fusionIr(), device, { concurrentSegments: false });
  segmented.runFusion(planned).forEach((t) => t.dispose());
  const kernels = segmented.lastPlan()?.steps.length ?? 0;
  time(`runFusion (${file}, ${kernels} kernels)`, () => {
    for (const t of segmented.runFusion(planned)) t.dispose();
  });
}

const graphed = new FusionExecutorCache(pointwise(), device, { concurrentSegments: false, cudaGraph: true });
time('runFusion cudaGraph replay (fake graph)', () => {
  for (const t of graphed.runFusion(args)) t.dispose();
});

const backend = createGpuBackend({ deviceContext: (): DeviceContext => device, cubinDirectory: null });
const fd = FusionDefinition.build((d) => {
  const x = d.defineTensor({ symbolicSizes: [-1, -1], contiguous: [true, true], dtype: 'Float' });
  const y = d.defineTensor({ symbolicSizes: [-1, -1], contiguous: [true, true], dtype: 'Float' });
  const two = d.defineConstant(2.0, 'Double');
  d.addOutput(d.ops.add(d.ops.mul(x, two), y));
  d.addOutput(d.ops.add(x, y));
});
// execute is async: time a sequential loop of awaited calls.
async function timeAsync(label: string, call: () => Promise<void>): Promise<void> {
  if (!wanted(label)) return;
  for (let i = 0; i < Math.min(CALLS, 5000); i += 1) await call();
  const perCall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < RUNS; r += 1) {
    const c0 = cpuMicros();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i += 1) await call();
    clearLaunches();
    perCall.push(Number(process.hrtime.bigint() - t0) / 1e3 / CALLS);
    cpu.push((cpuMicros() - c0) / CALLS);
  }
  report(label, perCall, cpu);
}
await timeAsync('fd.execute (gpu backend on the fake device)', async () => {
  for (const t of await fd.execute(args, { backend })) t.dispose();
});
