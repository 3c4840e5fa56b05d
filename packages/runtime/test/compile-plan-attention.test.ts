// The compile plan with attention segments, built without a device: an sdpfa_fwd / sdpfa_bwd is
// an attention call (no step in `steps`) with its generated kernels, in the plan's sequence in
// group order; running it against a recording AttentionDevice launches exactly the kernels'
// parameter lists with the values derived by hand from the layouts (pointers of the segment's
// buffers, strides, sizes, scale·log2e, philox seed / offset written as nvFuser returns them,
// scratch and dQ workspace sizes, every workspace released); layouts that changed since the
// plan, and outputs the kernels cannot write, are clear errors. The attention half of a decoder
// block plans GEMM library calls and generated kernels around one attention call, V read in place
// through the permuted view of its linear's output.
import {
  add, broadcast, cast, cat, Fusion, linear, makeTensor, mul, neg, permute, reshape, rmsNorm, sdpfaBwd, sdpfaFwd, slice, type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, H100_PROPERTIES, makeRuntimeInfo, segmentationPlanner } from '@tsfuser/scheduler';
import type { AttentionKernel, AttentionProblem } from '@tsfuser/codegen';
import { describe, expect, it } from 'vitest';
import {
  attentionKernelsToString, buildCompilePlan, runAttention, type AttentionBuffer, type AttentionDevice, type AttentionSegment, type CompilePlan, type PlannedArgument,
} from '../src/index.js';

function input(f: Fusion, shape: number[], dtype: DataType = 'BFloat16'): TensorView {
  const tv = makeTensor(f, { shape, dtype });
  f.addInput(tv);
  return tv;
}

function dense(sizes: readonly number[]): number[] {
  const s = new Array<number>(sizes.length).fill(1);
  for (let i = sizes.length - 2; i >= 0; i -= 1) s[i] = (s[i + 1] as number) * (sizes[i + 1] as number);
  return s;
}

function planOf(fusion: Fusion, sizes: number[][]): CompilePlan {
  const info = makeRuntimeInfo(fusion, sizes.map((s) => ({ sizes: s, alignment: 256 })), H100_PROPERTIES);
  const args: PlannedArgument[] = sizes.map((s) => ({ kind: 'tensor', sizes: s, strides: dense(s), alignment: 256 }));
  const registry = defaultSchedulerRegistry();
  return buildCompilePlan(fusion, args, H100_PROPERTIES, info, segmentationPlanner(registry)(fusion, info), { registry });
}

interface Launch {
  kernel: AttentionKernel;
  problem: AttentionProblem;
  values: Readonly<Record<string, number | bigint>>;
}

/** Records launches, hands out fake 256-aligned pointers, checks every allocation is released. */
class RecordingDevice implements AttentionDevice {
  readonly launches: Launch[] = [];
  readonly allocations = new Map<bigint, number>();
  readonly writes: { pointer: bigint; words: readonly bigint[] }[] = [];
  readonly reads: bigint[] = [];
  released = 0;
  private next = 0x7000_0000n;
  constructor(private readonly words: readonly bigint[] = []) {}
  launch(kernel: AttentionKernel, problem: AttentionProblem, values: Readonly<Record<string, number | bigint>>): void {
    // Every parameter has a value (the executor's packing would name a missing one).
    for (const p of kernel.parameters) expect(values[p.name], `${kernel.name}: ${p.name}`).toBeDefined();
    this.launches.push({ kernel, problem, values });
  }
  allocate(bytes: number): bigint {
    const p = this.next;
    this.next += BigInt(Math.ceil(bytes / 256) * 256);
    this.allocations.set(p, bytes);
    return p;
  }
  release(pointer: bigint): void {
    expect(this.allocations.has(pointer)).toBe(true);
    this.released += 1;
  }
  writeWords(pointer: bigint, words: readonly bigint[]): void {
    this.writes.push({ pointer, words });
  }
  readWords(pointer: bigint, count: number): bigint[] {
    this.reads.push(pointer);
    return this.words.slice(0, count);
  }
}

function buffer(ptr: number, sizes: number[], strides = dense(sizes)): AttentionBuffer {
  return { dataPtr: BigInt(ptr), sizes, strides };
}

function onlyAttention(p: CompilePlan): AttentionSegment {
  expect(p.attentionCalls).toHaveLength(1);
  const call = p.attentionCalls[0];
  if (call === undefined) throw new Error('no attention call');
  return call.kernel;
}

describe('compile plans with attention segments', () => {
  it('sdpfa_fwd (GQA, L ≠ S) is one attention call with the forward kernel; running it launches the hand-derived arguments', () => {
    const f = new Fusion();
    const [q, k, v] = [input(f, [-1, -1, -1, -1]), input(f, [-1, -1, -1, -1]), input(f, [-1, -1, -1, -1])];
    const r = sdpfaFwd(q, k, v, { isCausal: true, rng: { rngSeed: 1234, rngOffset: 8 } });
    f.addOutput(r.output);
    f.addOutput(r.philoxSeed);
    f.addOutput(r.philoxOffset);
    const p = planOf(f, [[2, 8, 33, 64], [2, 2, 70, 64], [2, 2, 70, 64]]);
    expect(p.segments.map((s) => s.kind)).toEqual(['attention']);
    expect(p.steps).toHaveLength(0);
    expect(p.sequence).toEqual([{ kind: 'attention', index: 0 }]);
    const seg = onlyAttention(p);
    expect(p.segments[0]).toBe(seg);
    expect(seg.kernels.map((x) => x.name)).toEqual([expect.stringContaining('bf16_e64_causal')]);
    expect(seg.problem).toEqual({ batch: 2, heads: 8, kvHeads: 2, queryLength: 33, keyLength: 70 });
    expect(attentionKernelsToString(seg)).toMatch(/grid \[\d+, 8, 2\]/);
    const dev = new RecordingDevice();
    runAttention(seg, [buffer(0x1000, [2, 8, 33, 64]), buffer(0x2000, [2, 2, 70, 64]), buffer(0x3000, [2, 2, 70, 64])], [buffer(0x4000, [2, 8, 33, 64]), buffer(0x5000, [2]), buffer(0x6000, [])], dev);
    expect(dev.launches).toHaveLength(1);
    const a = dev.launches[0]?.values ?? {};
    expect([a.q, a.k, a.v, a.o, a.bias]).toEqual([0x1000n, 0x2000n, 0x3000n, 0x4000n, 0n]);
    expect([a.heads, a.kvHeads, a.queryLength, a.keyLength]).toEqual([8, 2, 33, 70]);
    expect([a.qStrideN, a.qStrideH, a.qStrideL, a.kStrideN, a.kStrideH, a.kStrideL]).toEqual([8 * 33 * 64, 33 * 64, 64, 2 * 70 * 64, 70 * 64, 64]);
    expect(a.scaleLog2).toBe(Math.fround(Math.LOG2E / 8));
    expect([a.seed, a.offset, a.keepProb, a.keepScale]).toEqual([1234n, 8n, 1, 1]);
    // logsumexp is no output: a scratch Float [2, 8, 33], released after the launch
    expect(a.lse).toBeTypeOf('bigint');
    expect(dev.allocations.get(a.lse as bigint)).toBe(2 * 8 * 33 * 4);
    expect(dev.released).toBe(dev.allocations.size);
    expect(dev.writes).toEqual([{ pointer: 0x5000n, words: [1234n, 8n] }, { pointer: 0x6000n, words: [0n] }]);
  });

  it('sdpfa_bwd launches preprocess, main and convert with the f32 dQ workspace; with dropout the seed is read back', () => {
    const f = new Fusion();
    const [go, q, k, v, o] = [0, 1, 2, 3, 4].map(() => input(f, [-1, -1, -1, -1])) as [TensorView, TensorView, TensorView, TensorView, TensorView];
    const lse = input(f, [-1, -1, -1], 'Float');
    const seed = input(f, [2], 'UInt64');
    const offset = input(f, [], 'UInt64');
    const g = sdpfaBwd(go, q, k, v, o, lse, 0.25, false, seed, offset, 0.5);
    f.addOutput(g.gradQuery);
    f.addOutput(g.gradKey);
    f.addOutput(g.gradValue);
    const qs = [1, 4, 20, 128];
    const ks = [1, 4, 50, 128];
    const p = planOf(f, [qs, qs, ks, ks, qs, [1, 4, 20], [2], []]);
    const seg = onlyAttention(p);
    expect(seg.kernels).toHaveLength(3);
    const dev = new RecordingDevice([99n, 7n]);
    const ins = [buffer(0x1000, qs), buffer(0x2000, qs), buffer(0x3000, ks), buffer(0x4000, ks), buffer(0x5000, qs), buffer(0x6000, [1, 4, 20]), buffer(0x7000, [2]), buffer(0x7100, [])];
    runAttention(seg, ins, [buffer(0x8000, qs), buffer(0x9000, ks), buffer(0xa000, ks)], dev);
    expect(dev.reads).toEqual([0x7000n]);
    const [pre, main, convert] = dev.launches.map((l) => l.values);
    expect(pre?.rows).toBe(80);
    expect(dev.allocations.get(pre?.gradQueryAccumulator as bigint)).toBe(80 * 128 * 4);
    expect(dev.allocations.get(pre?.delta as bigint)).toBe(80 * 4);
    expect(main?.gradQueryAccumulator).toBe(pre?.gradQueryAccumulator);
    expect([main?.q, main?.gradOutput, main?.lse, main?.gradKey, main?.gradValue, main?.seed, main?.offset]).toEqual([0x2000n, 0x1000n, 0x6000n, 0x9000n, 0xa000n, 99n, 7n]);
    expect([main?.scale, main?.keepProb, main?.keepScale]).toEqual([0.5, Math.fround(0.75), Math.fround(1 / 0.75)]);
    expect([convert?.gradQuery, convert?.scale]).toEqual([0x8000n, 0.5]);
    expect(dev.released).toBe(2);
  });

  it('a runtime scale (a Double scalar input, nvFuser\'s define_scalar(dtype=Double)) is read at each call: one plan, scaleLog2 / scale of each value', () => {
    // Random values (seed printed): the kernels' scale parameters are each call's value, not the plan's.
    const seed = Date.now() % 100000;
    let state = seed;
    const rand = (): number => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return 0.05 + (state / 2147483648) * 2;
    };
    const f = new Fusion();
    const [q, k, v] = [input(f, [-1, -1, -1, -1]), input(f, [-1, -1, -1, -1]), input(f, [-1, -1, -1, -1])];
    const s = f.newSymbolicScalar('Double');
    f.addInput(s);
    f.addOutput(sdpfaFwd(q, k, v, { scale: s }).output);
    const sizes = [1, 2, 16, 64];
    const info = makeRuntimeInfo(f, [{ sizes, alignment: 256 }, { sizes, alignment: 256 }, { sizes, alignment: 256 }, null], H100_PROPERTIES);
    const args: PlannedArgument[] = [0, 1, 2].map(() => ({ kind: 'tensor', sizes, strides: dense(sizes), alignment: 256 }));
    args.push({ kind: 'scalar' });
    const registry = defaultSchedulerRegistry();
    const seg = onlyAttention(buildCompilePlan(f, args, H100_PROPERTIES, info, segmentationPlanner(registry)(f, info), { registry }));
    expect(seg.params.scale).toEqual({ input: 3 });
    const ins = [buffer(0x1000, sizes), buffer(0x2000, sizes), buffer(0x3000, sizes), { dataPtr: 0n, sizes: [], strides: [] }];
    for (const value of [rand(), rand(), 1 / 8]) {
      const dev = new RecordingDevice();
      runAttention(seg, ins, [buffer(0x4000, sizes)], dev, [undefined, undefined, undefined, value]);
      expect(dev.launches[0]?.values.scaleLog2, `seed ${seed}, scale ${value}`).toBe(Math.fround(value * Math.LOG2E));
    }
    expect(() => runAttention(seg, ins, [buffer(0x4000, sizes)], new RecordingDevice())).toThrow(/the scale \(input 3\) is undefined, not a finite number/);
  });

  it('sdpfa_bwd with a runtime scale passes each call\'s value to the main and convert kernels', () => {
    const f = new Fusion();
    const [go, q, k, v, o] = [0, 1, 2, 3, 4].map(() => input(f, [-1, -1, -1, -1])) as [TensorView, TensorView, TensorView, TensorView, TensorView];
    const lse = input(f, [-1, -1, -1], 'Float');
    const seed = input(f, [2], 'UInt64');
    const offset = input(f, [], 'UInt64');
    const s = f.newSymbolicScalar('Double');
    f.addInput(s);
    const g = sdpfaBwd(go, q, k, v, o, lse, 0, false, seed, offset, s);
    f.addOutput(g.gradQuery);
    f.addOutput(g.gradKey);
    f.addOutput(g.gradValue);
    const qs = [1, 2, 20, 64];
    const all = [qs, qs, qs, qs, qs, [1, 2, 20], [2], []];
    const info = makeRuntimeInfo(f, [...all.map((x) => ({ sizes: x, alignment: 256 })), null], H100_PROPERTIES);
    const args: PlannedArgument[] = all.map((x) => ({ kind: 'tensor', sizes: x, strides: dense(x), alignment: 256 }));
    args.push({ kind: 'scalar' });
    const registry = defaultSchedulerRegistry();
    const seg = onlyAttention(buildCompilePlan(f, args, H100_PROPERTIES, info, segmentationPlanner(registry)(f, info), { registry }));
    expect(seg.params.scale).toEqual({ input: 8 });
    const dev = new RecordingDevice();
    const ins = [...all.map((x, i) => buffer(0x1000 * (i + 1), x)), { dataPtr: 0n, sizes: [], strides: [] }];
    runAttention(seg, ins, [buffer(0x9000, qs), buffer(0xa000, qs), buffer(0xb000, qs)], dev, [...all.map(() => undefined), 0.3]);
    const [, main, convert] = dev.launches.map((l) => l.values);
    expect([main?.scale, main?.scaleLog2, convert?.scale]).toEqual([Math.fround(0.3), Math.fround(0.3 * Math.LOG2E), Math.fround(0.3)]);
  });

  it('a layout other than the planned one, and an output the kernels cannot write, are clear errors', () => {
    const f = new Fusion();
    const [q, k, v] = [input(f, [-1, -1, -1, -1]), input(f, [-1, -1, -1, -1]), input(f, [-1, -1, -1, -1])];
    f.addOutput(sdpfaFwd(q, k, v).output);
    const s = [1, 2, 16, 64];
    const seg = onlyAttention(planOf(f, [s, s, s]));
    const ins = [buffer(0x1000, s), buffer(0x2000, s), buffer(0x3000, s)];
    expect(() => runAttention(seg, [buffer(0x1000, s, [2048, 64, 128, 1]), ins[1] as AttentionBuffer, ins[2] as AttentionBuffer], [buffer(0x4000, s)], new RecordingDevice())).toThrow(
      /segment 0 \(attention sdpfa_fwd\): query has sizes \[1, 2, 16, 64\] strides \[2048, 64, 128, 1\] but the plan was made for sizes \[1, 2, 16, 64\] strides \[2048, 1024, 64, 1\]/,
    );
    expect(() => runAttention(seg, ins, [buffer(0x4000, s, [2048, 1024, 1, 16])], new RecordingDevice())).toThrow(/output \(.*\) must have a contiguous last dim and 16-byte aligned rows/);
  });

  it('the attention half of a decoder block: GEMM calls and kernels around one attention call, V read in place', () => {
    const [bsz, t, d, h, hkv, e] = [2, 40, 256, 4, 2, 64];
    const f = new Fusion();
    const x = input(f, [bsz, t, d]);
    const wNorm = input(f, [d]);
    const [wq, wk, wv] = [input(f, [h * e, d]), input(f, [hkv * e, d]), input(f, [hkv * e, d])];
    const wo = input(f, [d, h * e]);
    const cos = input(f, [t, e], 'Float');
    const sin = input(f, [t, e], 'Float');
    const normed = cast(rmsNorm(x, 1, wNorm).output, 'BFloat16');
    const heads = (w: TensorView, n: number): TensorView => permute(reshape(linear(normed, w), [bsz, t, n, e]), [0, 2, 1, 3]);
    const rope = (y: TensorView, n: number): TensorView => {
      const rotated = cat([neg(slice(y, [0, 0, 0, e / 2], [bsz, n, t, e])), slice(y, [0, 0, 0, 0], [bsz, n, t, e / 2])], 3);
      return cast(add(mul(y, broadcast(cos, [true, true, false, false])), mul(rotated, broadcast(sin, [true, true, false, false]))), 'BFloat16');
    };
    const attn = sdpfaFwd(rope(heads(wq, h), h), rope(heads(wk, hkv), hkv), heads(wv, hkv), { isCausal: true });
    f.addOutput(cast(add(x, linear(reshape(permute(attn.output, [0, 2, 1, 3]), [bsz, t, h * e]), wo)), 'BFloat16'));
    const p = planOf(f, [[bsz, t, d], [d], [h * e, d], [hkv * e, d], [hkv * e, d], [d, h * e], [t, e], [t, e]]);
    const kinds = p.segments.map((s) => s.kind);
    expect(kinds.filter((k2) => k2 === 'attention')).toHaveLength(1);
    expect(kinds.filter((k2) => k2 === 'libraryCall')).toHaveLength(4);
    expect(p.sequence.filter((s) => s.kind === 'attention')).toHaveLength(1);
    const pa = onlyAttention(p).params;
    if (pa.op !== 'sdpfa_fwd') throw new Error('not the forward');
    expect([pa.batch, pa.heads, pa.kvHeads, pa.queryLength, pa.keyLength, pa.variant.causal]).toEqual([2, 4, 2, 40, 40, true]);
    // V: the permute [B, T, Hkv, E] → [B, Hkv, T, E] of the dense linear output [B, T, Hkv·E]
    expect(pa.tensors.value.strides).toEqual([t * hkv * e, e, hkv * e, 1]);
    expect(pa.tensors.query.strides).toEqual(dense([bsz, h, t, e]));
  });
});
