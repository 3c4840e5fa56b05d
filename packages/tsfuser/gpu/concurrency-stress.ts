// GPU stress test of concurrently launched segments (needs a GPU; not a vitest suite).
//
//   bash gpu-bundle/run.sh tsfuser-concurrency-stress [--iterations N] [--seed S]
//
// Fusions whose segments share no data run their independent segments on the device's side
// stream (runtime side-stream-steps.ts). A race or an ordering bug between the streams would show
// as an output that differs from run to run. Each case builds two executor caches over the same
// fusion — side stream on, and off — which compile the same kernels (the heuristics depend only on
// sizes and dtypes), so with deterministic kernels the two must agree bit for bit, on every one
// of many calls with fresh, poisoned output buffers. Every 50 calls the outputs are also compared
// with the reference evaluator (dtype tolerance, plus the rounding bound of the sums:
// summation-slack.ts). The stress varies sizes (block and grid reductions, tiny tensors) and has
// plans with one and with two side-stream segments. Last line: `N passed, M failed`.

import { abs, add, evaluate, exp, Fusion, HostTensor, makeTensor, max, mul, sum, type TensorView } from '@tsfuser/fusion-ir';
import { DeviceContext, isAvailable, type Tensor } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { randomHost, toDeviceInput, Random, type DeviceInput } from '../src/bench/device-inputs.js';
import { compareTensors, toleranceFor } from '../src/io/compare.js';
import { absoluteHost, summationSlack } from './summation-slack.js';

const flag = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

interface StressFusion {
  name: string;
  fusion: Fusion;
  /** Side-stream launches per call when concurrent segments are on. */
  sideLaunches: number;
  /** For each output: the number of terms each of its elements sums (0: not a sum). */
  terms: (sizes: readonly number[]) => number[];
}

function input3d(f: Fusion): TensorView {
  const t = makeTensor(f, { shape: [-1, -1, -1], dtype: 'Float' });
  f.addInput(t);
  return t;
}

/** nvFuser #785's shape: a reduction of one input beside a pointwise op of another. */
function sumBesidePointwise(): StressFusion {
  const f = new Fusion();
  const a = input3d(f);
  const b = input3d(f);
  f.addOutput(sum(a, [0, 1]));
  f.addOutput(mul(mul(b, b), b));
  return { name: 'sum+pointwise', fusion: f, sideLaunches: 1, terms: (s) => [(s[0] as number) * (s[1] as number), 0] };
}

/** Three independent parts: a sum, a pointwise op and a max, two of them on the side stream. */
function threeIndependent(): StressFusion {
  const f = new Fusion();
  const a = input3d(f);
  const b = input3d(f);
  const c = input3d(f);
  f.addOutput(sum(a, [2]));
  f.addOutput(add(exp(mul(b, b)), b));
  f.addOutput(max(abs(c), [0, 1]));
  return { name: 'sum+pointwise+max', fusion: f, sideLaunches: 2, terms: (s) => [s[2] as number, 0, 0] };
}

function sameBits(a: HostTensor, b: HostTensor): number {
  const x = new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength);
  const y = new Uint8Array(b.data.buffer, b.data.byteOffset, b.data.byteLength);
  if (x.length !== y.length) return -1;
  for (let i = 0; i < x.length; i += 1) if (x[i] !== y[i]) return i;
  return x.length;
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
  const iterations = flag('iterations', 200);
  const rng = new Random(seed);
  const device = DeviceContext.create(0);
  const sizesList: number[][] = [
    [16, 64, 1024],
    [3, 5, 7],
    [64, 64, 1024],
    [1, 1, 1 << 20],
    [4096, 8, 33],
  ];
  let passed = 0;
  let failed = 0;
  const lines: string[] = [];
  for (const stress of [sumBesidePointwise(), threeIndependent()]) {
    const concurrent = new FusionExecutorCache(stress.fusion, device, { poisonOutputs: true, concurrentSegments: true });
    const serial = new FusionExecutorCache(stress.fusion, device, { poisonOutputs: true, concurrentSegments: false });
    for (const sizes of sizesList) {
      const strides = [(sizes[1] as number) * (sizes[2] as number), sizes[2] as number, 1];
      let mismatches = 0;
      let referenceChecks = 0;
      let detail = '';
      let inputs: DeviceInput[] = [];
      const sideBefore = concurrent.stats.sideLaunches;
      for (let k = 0; k < iterations; k += 1) {
        // Fresh inputs every 50 calls; the reference check on those calls.
        const fresh = k % 50 === 0;
        if (fresh) {
          for (const i of inputs) i.owner.dispose();
          inputs = stress.fusion.inputs.map(() => toDeviceInput(device, randomHost('Float', sizes, strides, rng), false));
        }
        const args = inputs.map((i) => i.tensor);
        const a = concurrent.runFusion(args);
        const b = serial.runFusion(args);
        try {
          const hostA = a.map((t: Tensor) => t.toHost());
          const hostB = b.map((t: Tensor) => t.toHost());
          hostA.forEach((h, o) => {
            const at = sameBits(h, hostB[o] as HostTensor);
            if (at !== h.data.byteLength) {
              mismatches += 1;
              if (detail === '') detail = `call ${k} output ${o}: concurrent and serial differ at byte ${at}`;
            }
          });
          if (fresh) {
            referenceChecks += 1;
            const expected = evaluate(stress.fusion, inputs.map((i) => i.host)) as HostTensor[];
            const absolute = evaluate(stress.fusion, inputs.map((i) => absoluteHost(i.host))) as HostTensor[];
            const terms = stress.terms(sizes);
            hostA.forEach((h, o) => {
              const n = terms[o] ?? 0;
              const slack = n > 0 ? summationSlack(absolute[o] as HostTensor, n) : undefined;
              const tol = toleranceFor('Float');
              const r = compareTensors(h, expected[o] as HostTensor, { rtol: tol.rtol * 10, atol: tol.atol * 10 }, slack);
              if (!r.ok) {
                mismatches += 1;
                const m = r.mismatch === undefined ? '' : ` first at ${r.mismatch.index}: ${r.mismatch.actual} vs ${r.mismatch.expected}`;
                if (detail === '') detail = `call ${k} output ${o} vs reference: ${r.reason}${m}`;
              }
            });
          }
        } finally {
          for (const t of [...a, ...b]) t.dispose();
        }
      }
      for (const i of inputs) i.owner.dispose();
      const side = concurrent.stats.sideLaunches - sideBefore;
      // The plan's shape is the segmenter's choice: require that the side stream was used on every call.
      if (side < iterations) {
        mismatches += 1;
        if (detail === '') detail = `side-stream launches ${side} in ${iterations} calls (expected ≥ 1 per call, ${stress.sideLaunches} planned)`;
      }
      const name = `${stress.name} [${sizes.join(',')}]`;
      if (mismatches === 0) passed += 1;
      else failed += 1;
      lines.push(`${mismatches === 0 ? 'passed' : 'FAILED'} ${name.padEnd(34)} ${iterations} calls, ${side} side launches, ${referenceChecks} reference checks${detail === '' ? '' : ` — ${detail}`}`);
    }
  }
  device.dispose();
  for (const l of lines) console.log(l);
  console.log(`seed ${seed}, ${iterations} calls per case`);
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
