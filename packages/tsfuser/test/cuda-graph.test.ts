// CUDA graph replay of cached plans (FusionExecutorCache's cudaGraph option, runtime
// executor/graph-capture.ts) on the fake H100 (test/fake-device.ts models stream capture:
// launches while capturing are recorded into the graph, frees are deferred to it, and each graph
// launch runs the recorded launches). The state machine: a layout's first call runs normally, the
// second captures (and launches the graph once), later ones replay; another layout starts again;
// other scalar values capture again; a profiled call runs without a graph; plans that cannot be
// captured run normally with the reason; inputs are copied into the graph's static buffers and
// outputs copied out (or returned as views of the static outputs on request); releaseGraphs()
// frees everything the graphs owned.
import { add, Complex, Fusion, makeTensor, mul, permute, sdpfaBwd, sdpfaFwd, type TensorView } from '@tsfuser/fusion-ir';
import { Tensor, type DeviceContext } from '@tsfuser/device';
import { FusionExecutorCache, sameScalars, segmentCaptureRefusal, type PlanSegment } from '@tsfuser/runtime';
import { describe, expect, it } from 'vitest';
import { loadDefinition } from '../src/cli/load-definition.js';
import { planInputs } from '../src/cli/run-inputs.js';
import { createGpuBackend, FusionDefinition, referenceBackend, type Backend } from '../src/index.js';
import { fakeDevice } from './fake-device.js';
import { FIXTURES } from './helpers.js';

function input(f: Fusion, rank: number, dtype: 'Float' | 'BFloat16' = 'Float'): TensorView {
  const tv = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype });
  f.addInput(tv);
  return tv;
}

/** out0 = x * 2 + y, out1 = x + y: one pointwise kernel, two outputs. */
function pointwise(): Fusion {
  const f = new Fusion();
  const [x, y] = [input(f, 2), input(f, 2)];
  f.addOutput(add(mul(x, 2), y));
  f.addOutput(add(x, y));
  return f;
}

const onDevice = (device: DeviceContext, sizes: number[], dtype: 'Float' | 'BFloat16' = 'Float'): Tensor => Tensor.emptyDevice(device, dtype, sizes);

describe('CUDA graph replay of a cached plan', () => {
  it('first call normal, second captures, later calls replay; inputs copied in, outputs copied out', () => {
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(pointwise(), fake.device, { cudaGraph: true });
    const [x, y] = [onDevice(fake.device, [64, 32]), onDevice(fake.device, [64, 32])];
    cache.runFusion([x, y]).forEach((t) => t.dispose());
    expect(cache.lastGraphRun()).toEqual({ kind: 'normal', reason: expect.stringMatching(/first call of an input layout/) });
    const perCall = fake.launches.length;
    expect(perCall).toBeGreaterThan(0);
    expect(fake.graphs.captured).toBe(0);

    const second = cache.runFusion([x, y]);
    expect(cache.lastGraphRun()).toEqual({ kind: 'captured' });
    expect(fake.graphs).toEqual({ captured: 1, launched: 1, destroyed: 0 });
    // The capture ran nothing; the graph's launch ran the plan's kernels once.
    expect(fake.launches.length).toBe(2 * perCall);
    expect(fake.launches.slice(perCall)).toEqual(fake.launches.slice(0, perCall));
    // Static inputs made from x and y, then the two outputs copied out.
    expect(fake.copies.map((c) => c.source).slice(0, 2)).toEqual([x.dataPtr, y.dataPtr]);
    expect(fake.copies, JSON.stringify(fake.copies, (_, v: unknown) => (typeof v === 'bigint' ? v.toString(16) : v))).toHaveLength(4);

    const copiesBefore = fake.copies.length;
    const third = cache.runFusion([x, y]);
    expect(cache.lastGraphRun()).toEqual({ kind: 'replayed' });
    expect(fake.graphs).toEqual({ captured: 1, launched: 2, destroyed: 0 });
    expect(fake.launches.length).toBe(3 * perCall);
    const replayCopies = fake.copies.slice(copiesBefore);
    // x and y into the static inputs (the capture's), then the static outputs out.
    expect(replayCopies.map((c) => c.source).slice(0, 2)).toEqual([x.dataPtr, y.dataPtr]);
    expect(replayCopies.slice(0, 2).map((c) => c.destination)).toEqual(fake.copies.slice(0, 2).map((c) => c.destination));
    expect(replayCopies.slice(2).map((c) => c.source)).toEqual(fake.copies.slice(2, 4).map((c) => c.source));
    // Outputs are fresh tensors each call (copies), never the graph's static buffers.
    for (const [a, b] of third.map((t, i) => [t, second[i] as Tensor] as const)) expect(a.dataPtr).not.toBe(b.dataPtr);
    expect(third.map((t) => t.dataPtr)).not.toContain(replayCopies[2]?.source);
    expect(cache.stats.graphCaptures).toBe(1);
    expect(cache.stats.graphReplays).toBe(1);
    [...second, ...third].forEach((t) => t.dispose());
  });

  it('another input layout runs normally, then captures its own graph; the first keeps replaying', () => {
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(pointwise(), fake.device, { cudaGraph: true });
    const a = [onDevice(fake.device, [64, 32]), onDevice(fake.device, [64, 32])];
    const b = [onDevice(fake.device, [7, 300]), onDevice(fake.device, [7, 300])];
    const runs: string[] = [];
    for (const args of [a, a, b, b, a, b]) {
      cache.runFusion(args).forEach((t) => t.dispose());
      runs.push(cache.lastGraphRun()?.kind ?? 'none');
    }
    expect(runs).toEqual(['normal', 'captured', 'normal', 'captured', 'replayed', 'replayed']);
    expect(fake.graphs.captured).toBe(2);
  });

  it('other scalar values capture again (they are baked into the launches); a profiled call runs without a graph', () => {
    const fake = fakeDevice();
    const f = new Fusion();
    const x = input(f, 2);
    const s = f.newSymbolicScalar('Double');
    f.addInput(s);
    f.addOutput(mul(x, s));
    const cache = new FusionExecutorCache(f, fake.device, { cudaGraph: true });
    const t = onDevice(fake.device, [16, 16]);
    const runs: string[] = [];
    for (const [value, profile] of [[2, false], [2, false], [2, false], [3, false], [3, false], [3, true]] as const) {
      cache.runFusion([t, value], { profile }).forEach((o) => o.dispose());
      runs.push(cache.lastGraphRun()?.kind ?? 'none');
    }
    expect(runs).toEqual(['normal', 'captured', 'replayed', 'captured', 'replayed', 'normal']);
    expect(cache.lastGraphRun()).toEqual({ kind: 'normal', reason: expect.stringMatching(/profiled call runs without a graph/) });
    expect(cache.lastProfile()?.segments).toBe(1);
    expect(fake.graphs).toMatchObject({ captured: 2, destroyed: 1 });
  });

  it('runFusion({ cudaGraph }) overrides the cache option; off, lastGraphRun() is null', () => {
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(pointwise(), fake.device);
    const args = [onDevice(fake.device, [8, 8]), onDevice(fake.device, [8, 8])];
    cache.runFusion(args).forEach((t) => t.dispose());
    expect(cache.lastGraphRun()).toBeNull();
    cache.runFusion(args, { cudaGraph: true }).forEach((t) => t.dispose());
    expect(cache.lastGraphRun()).toEqual({ kind: 'captured' });
    cache.runFusion(args).forEach((t) => t.dispose());
    expect(cache.lastGraphRun()).toBeNull();
    expect(fake.graphs.launched).toBe(1);
  });

  it('graphStaticOutputs returns views of the static outputs: same pointers every replay, disposing them frees nothing', () => {
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(pointwise(), fake.device, { cudaGraph: true, graphStaticOutputs: true });
    const args = [onDevice(fake.device, [8, 8]), onDevice(fake.device, [8, 8])];
    cache.runFusion(args).forEach((t) => t.dispose());
    const captured = cache.runFusion(args);
    const pointers = captured.map((t) => t.dataPtr);
    const live = fake.live.size;
    captured.forEach((t) => t.dispose());
    expect(fake.live.size).toBe(live);
    const replayed = cache.runFusion(args);
    expect(replayed.map((t) => t.dataPtr)).toEqual(pointers);
    // Only the inputs were copied on the replay.
    expect(fake.copies.slice(-2).map((c) => c.source)).toEqual(args.map((t) => t.dataPtr));
  });

  it('releaseGraphs() destroys every graph and frees what it owned; the next call captures again', () => {
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(pointwise(), fake.device, { cudaGraph: true });
    const args = [onDevice(fake.device, [32, 32]), onDevice(fake.device, [32, 32])];
    cache.runFusion(args).forEach((t) => t.dispose());
    const before = fake.live.size;
    cache.runFusion(args).forEach((t) => t.dispose());
    cache.runFusion(args).forEach((t) => t.dispose());
    // Static inputs and outputs stay allocated while the graph lives.
    expect(fake.live.size).toBe(before + 4);
    cache.releaseGraphs();
    expect(fake.graphs.destroyed).toBe(1);
    expect(fake.live.size).toBe(before);
    cache.runFusion(args).forEach((t) => t.dispose());
    expect(cache.lastGraphRun()).toEqual({ kind: 'captured' });
  });
});

describe('graphKeyedByPointers: a graph at the call\'s own addresses, replayed with no copy', () => {
  const keyed = { cudaGraph: true, graphKeyedByPointers: true } as const;

  it('captures on the call\'s own inputs and outputs; a call with the same pointers whose last outputs were disposed replays with no copy at the same output blocks', () => {
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(pointwise(), fake.device, keyed);
    const [x, y] = [onDevice(fake.device, [64, 32]), onDevice(fake.device, [64, 32])];
    cache.runFusion([x, y]).forEach((t) => t.dispose());
    const perCall = fake.launches.length;
    const second = cache.runFusion([x, y]);
    expect(cache.lastGraphRun()).toEqual({ kind: 'captured', keyedByPointers: true });
    expect(fake.graphs).toEqual({ captured: 1, launched: 1, destroyed: 0 });
    expect(fake.launches.length).toBe(2 * perCall);
    const pointers = second.map((t) => t.dataPtr);
    second.forEach((t) => t.dispose());
    for (let call = 0; call < 3; call += 1) {
      const out = cache.runFusion([x, y]);
      expect(cache.lastGraphRun()).toEqual({ kind: 'replayed', keyedByPointers: true });
      expect(out.map((t) => t.dataPtr)).toEqual(pointers);
      expect(out.map((t) => t.sizes)).toEqual([[64, 32], [64, 32]]);
      out.forEach((t) => t.dispose());
    }
    // Not one copy: no static inputs, no outputs copied out.
    expect(fake.copies).toHaveLength(0);
    expect(fake.graphs).toEqual({ captured: 1, launched: 4, destroyed: 0 });
    expect(fake.launches.length).toBe(5 * perCall);
    expect(cache.stats).toMatchObject({ graphCaptures: 1, graphReplays: 3 });
  });

  it('other input pointers, or outputs still held, replay the static-copy graph; the pointer graph replays again once the call matches', () => {
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(pointwise(), fake.device, keyed);
    const a = [onDevice(fake.device, [16, 16]), onDevice(fake.device, [16, 16])];
    const b = [onDevice(fake.device, [16, 16]), onDevice(fake.device, [16, 16])];
    const runs: string[] = [];
    const run = (args: Tensor[], dispose: boolean): Tensor[] => {
      const out = cache.runFusion(args);
      const r = cache.lastGraphRun();
      runs.push(`${r?.kind ?? 'none'}${r !== null && 'keyedByPointers' in r ? ' at pointers' : ''}`);
      if (dispose) out.forEach((t) => t.dispose());
      return out;
    };
    run(a, true);
    run(a, true);
    run(b, true); // other inputs: the static-copy graph is captured
    run(b, true);
    const held = run(a, false); // matches: replayed at the pointers, outputs kept
    run(a, true); // its output blocks are held by the caller: static copies
    held.forEach((t) => t.dispose());
    run(a, true);
    expect(runs).toEqual(['normal', 'captured at pointers', 'captured', 'replayed', 'replayed at pointers', 'replayed', 'replayed at pointers']);
    expect(fake.graphs.captured).toBe(2);
  });

  it('a replay that cannot take back every output block gives back those it took (the pool unchanged)', () => {
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(pointwise(), fake.device, keyed);
    const args = [onDevice(fake.device, [8, 8]), onDevice(fake.device, [8, 8])];
    cache.runFusion(args).forEach((t) => t.dispose());
    const [o0, o1] = cache.runFusion(args) as [Tensor, Tensor];
    const first = o0.dataPtr;
    o0.dispose(); // output 0's block is free, output 1's is still held
    const out = cache.runFusion(args);
    expect(cache.lastGraphRun()).toEqual({ kind: 'captured' });
    expect(fake.live.has(first)).toBe(false);
    expect(out.map((t) => t.dataPtr)).not.toContain(first);
    [...out, o1].forEach((t) => t.dispose());
    cache.runFusion(args).forEach((t) => t.dispose());
    expect(cache.lastGraphRun()).toEqual({ kind: 'replayed', keyedByPointers: true });
  });

  it('other scalar values do not replay the pointer graph; releaseGraphs() destroys both graphs', () => {
    const fake = fakeDevice();
    const f = new Fusion();
    const x = input(f, 2);
    const s = f.newSymbolicScalar('Double');
    f.addInput(s);
    f.addOutput(mul(x, s));
    const cache = new FusionExecutorCache(f, fake.device, keyed);
    const t = onDevice(fake.device, [16, 16]);
    const live = fake.live.size;
    const runs: string[] = [];
    for (const value of [2, 2, 2, 3, 3, 2, -0, 0]) {
      cache.runFusion([t, value]).forEach((o) => o.dispose());
      const r = cache.lastGraphRun();
      runs.push(`${r?.kind ?? 'none'}${r !== null && 'keyedByPointers' in r ? ' at pointers' : ''}`);
    }
    // -0 and 0 bake different launches: 0 captures again.
    expect(runs).toEqual(['normal', 'captured at pointers', 'replayed at pointers', 'captured', 'replayed', 'replayed at pointers', 'captured', 'captured']);
    cache.releaseGraphs();
    expect(fake.graphs.destroyed).toBe(fake.graphs.captured);
    expect(fake.live.size).toBe(live);
  });

  it('runFusion({ graphKeyedByPointers }) overrides the cache option', () => {
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(pointwise(), fake.device, { cudaGraph: true });
    const args = [onDevice(fake.device, [8, 8]), onDevice(fake.device, [8, 8])];
    cache.runFusion(args).forEach((t) => t.dispose());
    cache.runFusion(args, { graphKeyedByPointers: true }).forEach((t) => t.dispose());
    expect(cache.lastGraphRun()).toEqual({ kind: 'captured', keyedByPointers: true });
    cache.runFusion(args).forEach((t) => t.dispose());
    expect(cache.lastGraphRun()).toEqual({ kind: 'captured' });
  });

  it('sameScalars: Object.is per scalar (-0 is not 0, NaN is NaN), complex values by part, tensors not compared', () => {
    const fake = fakeDevice();
    const [t, u] = [onDevice(fake.device, [2]), onDevice(fake.device, [3])];
    expect(sameScalars([t, 2, true, 5n], [u, 2, true, 5n])).toBe(true);
    expect(sameScalars([t, 0], [t, -0])).toBe(false);
    expect(sameScalars([NaN], [NaN])).toBe(true);
    expect(sameScalars([new Complex(1, -0)], [new Complex(1, -0)])).toBe(true);
    expect(sameScalars([new Complex(1, -0)], [new Complex(1, 0)])).toBe(false);
    expect(sameScalars([t, 1], [1, t])).toBe(false);
    expect(sameScalars([1], [1, 2])).toBe(false);
  });
});

describe('plans that cannot be captured run normally, with the reason', () => {
  it('an attention forward that outputs its philox seed / offset (written by a synchronous copy)', () => {
    const fake = fakeDevice();
    const f = new Fusion();
    const [q, k, v] = [input(f, 4, 'BFloat16'), input(f, 4, 'BFloat16'), input(f, 4, 'BFloat16')];
    const r = sdpfaFwd(q, k, v);
    f.addOutput(r.output);
    f.addOutput(r.philoxSeed);
    f.addOutput(r.philoxOffset);
    const cache = new FusionExecutorCache(f, fake.device, { cudaGraph: true });
    const s = [1, 2, 16, 64];
    const args = [onDevice(fake.device, s, 'BFloat16'), onDevice(fake.device, s, 'BFloat16'), onDevice(fake.device, s, 'BFloat16')];
    for (let i = 0; i < 3; i += 1) cache.runFusion(args).forEach((t) => t.dispose());
    expect(cache.lastGraphRun()).toEqual({ kind: 'normal', reason: expect.stringMatching(/segment 0 \(attention forward\) writes its philox_seed \/ philox_offset outputs/) });
    expect(fake.graphs.captured).toBe(0);
    expect(fake.launches).toHaveLength(3);
  });

  it('a fusion output that is a view of an input (it would alias the static buffers)', () => {
    const fake = fakeDevice();
    const f = new Fusion();
    const x = input(f, 2);
    f.addOutput(permute(x, [1, 0]));
    const cache = new FusionExecutorCache(f, fake.device, { cudaGraph: true });
    const args = [onDevice(fake.device, [8, 4])];
    cache.runFusion(args).forEach((t) => t.dispose());
    cache.runFusion(args).forEach((t) => t.dispose());
    expect(cache.lastGraphRun()).toEqual({ kind: 'normal', reason: expect.stringMatching(/fusion output 0 is a view of an input or an intermediate/) });
  });

  it('poisonOutputs (a synchronous memset before the launches)', () => {
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(pointwise(), fake.device, { cudaGraph: true, poisonOutputs: true });
    const args = [onDevice(fake.device, [8, 8]), onDevice(fake.device, [8, 8])];
    cache.runFusion(args).forEach((t) => t.dispose());
    cache.runFusion(args).forEach((t) => t.dispose());
    expect(cache.lastGraphRun()).toEqual({ kind: 'normal', reason: expect.stringMatching(/poisonOutputs/) });
  });

  it('segmentCaptureRefusal over the plan segment kinds: attention backward with dropout reads its seed on the host', () => {
    const fake = fakeDevice();
    const f = new Fusion();
    const [q, k, v, go] = [input(f, 4, 'BFloat16'), input(f, 4, 'BFloat16'), input(f, 4, 'BFloat16'), input(f, 4, 'BFloat16')];
    const r = sdpfaFwd(q, k, v, { dropoutP: 0.1 });
    const g = sdpfaBwd(go, q, k, v, r.output, r.logsumexp, 0.1, false, r.philoxSeed, r.philoxOffset);
    f.addOutput(g.gradQuery);
    const cache = new FusionExecutorCache(f, fake.device, { cudaGraph: true });
    const s = [1, 2, 16, 64];
    const args = [0, 1, 2, 3].map(() => onDevice(fake.device, s, 'BFloat16'));
    // The fake's readWords path is not modelled (a host read of device memory): plan only.
    const plan = (() => {
      try {
        cache.runFusion(args);
      } catch {
        // the fake cannot read the seed back; the plan was built
      }
      return cache.lastPlan();
    })();
    const segments = plan?.segments ?? [];
    expect(segments.map((x) => x.kind)).toEqual(['attention', 'attention']);
    // The forward writes the philox seed / offset the backward reads: both refused.
    expect(segmentCaptureRefusal(segments[0] as PlanSegment)).toMatch(/segment 0 \(attention forward\) writes its philox_seed/);
    expect(segmentCaptureRefusal(segments[1] as PlanSegment)).toMatch(/segment 1 \(attention backward with dropout\) reads its Philox seed from device memory on the host/);
  });

  it('kernel, view and empty segments are capturable', () => {
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(pointwise(), fake.device);
    cache.runFusion([onDevice(fake.device, [8, 8]), onDevice(fake.device, [8, 8])]).forEach((t) => t.dispose());
    const segments = cache.lastPlan()?.segments ?? [];
    expect(segments.map((x) => x.kind)).toEqual(['kernel']);
    for (const x of segments) expect(segmentCaptureRefusal(x)).toBeNull();
    expect(segmentCaptureRefusal({ kind: 'view', groupId: 0, info: (segments[0] as PlanSegment).info })).toBeNull();
    expect(segmentCaptureRefusal({ kind: 'empty', groupId: 0, info: (segments[0] as PlanSegment).info })).toBeNull();
  });
});

describe('fd.execute({ cudaGraph })', () => {
  it('hands the option to the backend (the GPU backend passes it to runFusion); absent unless given', async () => {
    const { definition, inputs } = await loadDefinition('softmax.py', FIXTURES);
    const args = planInputs(definition.inputs(), inputs, { seed: 0, cwd: FIXTURES }).inputs;
    const seen: (boolean | undefined)[][] = [];
    const backend: Backend = { name: 'recording', availability: () => ({ available: true }), run: (f, a, o) => (seen.push([o.cudaGraph, o.graphKeyedByPointers]), referenceBackend.run(f, a, o)) };
    await definition.execute(args, { backend, cudaGraph: true });
    await definition.execute(args, { backend });
    await definition.execute(args, { backend, cudaGraph: true, graphKeyedByPointers: true });
    expect(seen).toEqual([[true, undefined], [undefined, undefined], [true, true]]);
  });
});

describe('fd.execute({ cudaGraph, graphKeyedByPointers }) through the GPU backend (fake H100)', () => {
  it('replays at the call\'s own addresses with no copy; without graphKeyedByPointers the static-copy graph', async () => {
    for (const keyedByPointers of [true, false]) {
      const fake = fakeDevice();
      const backend = createGpuBackend({ cubinDirectory: null, deviceContext: () => fake.device });
      const fd = FusionDefinition.build((d) => {
        const x = d.defineTensor({ symbolicSizes: [-1, -1], contiguous: [true, true], dtype: 'Float' });
        const y = d.defineTensor({ symbolicSizes: [-1, -1], contiguous: [true, true], dtype: 'Float' });
        d.addOutput(d.ops.add(d.ops.mul(x, d.defineConstant(2.0, 'Double')), y));
      });
      const args = [onDevice(fake.device, [32, 32]), onDevice(fake.device, [32, 32])];
      const options = { backend, cudaGraph: true, graphKeyedByPointers: keyedByPointers };
      for (let call = 0; call < 4; call += 1) for (const t of await fd.execute(args, options)) t.dispose();
      const cache = backend.executorCache(fd.fusionIr());
      expect(cache.lastGraphRun()).toEqual(keyedByPointers ? { kind: 'replayed', keyedByPointers: true } : { kind: 'replayed' });
      expect(cache.stats).toMatchObject({ graphCaptures: 1, graphReplays: 2 });
      // static copies: 2 inputs in + 1 output out per graphed call; none at the pointers
      expect(fake.copies).toHaveLength(keyedByPointers ? 0 : 9);
    }
  });
});

describe('the layout key of repeated arguments (LayoutKeyMemo)', () => {
  it('the same argument objects reuse the key; other sizes find their own plan', () => {
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(pointwise(), fake.device);
    const a = [onDevice(fake.device, [8, 8]), onDevice(fake.device, [8, 8])];
    const b = [onDevice(fake.device, [4, 16]), onDevice(fake.device, [4, 16])];
    const grids: string[] = [];
    const plans: number[] = [];
    for (const args of [a, a, b, a, [a[0] as Tensor, a[1] as Tensor]]) {
      plans.push(cache.stats.launchPlans);
      try {
        cache.runFusion(args).forEach((t) => t.dispose());
        grids.push(JSON.stringify(fake.launches.at(-1)?.grid));
      } catch (error) {
        grids.push(error instanceof Error ? 'error' : 'thrown');
      }
    }
    expect(plans).toEqual([0, 1, 1, 2, 2]);
    expect(grids[0]).toBe(grids[1]);
    expect(grids[3]).toBe(grids[0]);
    // A new list of the same tensors misses the memo and builds the same key: no new plan.
    expect(grids[4]).toBe(grids[0]);
    expect(cache.stats.launchPlans).toBe(2);
  });
});
