// Acceptance predicates: the reduction and normalization rules (one pattern, persistent
// buffers, reduction type, buffer budget, enough rows), no_op / expr_eval, the connected-graph
// rule, persistent buffer analysis and byte counts, and the summary of refusals.
import { describe, expect, it } from 'vitest';
import { Fusion, add, broadcast, makeTensor, mul, sub, sum, varMean } from '@tsfuser/fusion-ir';
import {
  H100_PROPERTIES, canScheduleNoOp, canScheduleNormalization, canScheduleReductionPattern, defaultSchedulerRegistry, makeRuntimeInfo,
  nvFuserAcceptors, persistentBufferBudget, persistentBufferBytes, persistentBuffers, reductionInfos, reductionType, registryAcceptors,
  summarizeRejections,
} from '../src/index.js';
import { issue785PowSum, layerNorm, softmax, twoReductionPatterns, type Fixture } from './segmentation-fixtures.js';

const info = (x: Fixture) => makeRuntimeInfo(x.fusion, x.sizes.map((s) => (s === null ? null : { sizes: s })));
const names = (tvs: readonly { name: number }[]): string[] => tvs.map((t) => `T${t.name}`);

/** y = x - mean(x, [0]) broadcast back: batch-norm-like, an outer persistent pattern. */
function outerNormalization(): Fixture {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1] });
  f.addInput(x);
  f.addOutput(sub(x, broadcast(sum(x, [0]), [true, false])));
  return { name: 'outer', fusion: f, sizes: [[256, 64]] };
}

/** y = x * bcast(sum(x, [1])) and sum(y * x, [0]): inner and outer reductions (layer-norm-backward-like). */
function innerOuterNormalization(): Fixture {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1] });
  f.addInput(x);
  const y = mul(x, broadcast(sum(x, [1]), [false, true]));
  f.addOutput(y);
  f.addOutput(sum(mul(y, x), [0]));
  return { name: 'inner_outer', fusion: f, sizes: [[128, 64]] };
}

describe('reduction acceptor (nvFuser rules)', () => {
  it('takes one reduction with pointwise work before it and outputs computed before it', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    const y = add(x, 1);
    f.addOutput(y);
    f.addOutput(sum(y, [0]));
    expect(canScheduleReductionPattern(f, makeRuntimeInfo(f, [{ sizes: [4, 5] }]))).toEqual({ ok: true });
  });

  it('takes Welford (var_mean) with its pointwise epilogue', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    const { var: v, mean } = varMean(x, [1]);
    f.addOutput(v);
    f.addOutput(mean);
    expect(canScheduleReductionPattern(f, makeRuntimeInfo(f, [{ sizes: [4, 5] }]))).toEqual({ ok: true });
  });

  it('refuses a second reduction pattern, naming both reductions and their dims', () => {
    const x = twoReductionPatterns();
    const r = canScheduleReductionPattern(x.fusion, info(x));
    expect(r).toEqual({ ok: false, reason: 'T3 is a second reduction pattern (T3 reduces [0, 1], T2 reduces [1])' });
  });

  it('refuses a persistent buffer (softmax) and names it', () => {
    const x = softmax();
    const r = canScheduleReductionPattern(x.fusion, info(x));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/^persistent buffer T1 \(read by the reduction T2 and again by T4\).*needs a normalization scheduler$/);
  });

  it('refuses unconnected tensor graphs (issue #785 pow+sum), naming their outputs', () => {
    const x = issue785PowSum();
    const r = canScheduleReductionPattern(x.fusion, info(x));
    expect(r).toEqual({ ok: false, reason: 'the fusion is 2 unconnected tensor graphs ({T4} and {T3}); one kernel takes one connected graph' });
  });

  it('refuses a broadcast of the result back over the reduced dims joined with another tensor', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    const y = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    f.addInput(y);
    f.addOutput(add(y, broadcast(sum(x, [1]), [false, true])));
    const r = canScheduleReductionPattern(f, makeRuntimeInfo(f, [{ sizes: [4, 5] }, { sizes: [4, 5] }]));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain('broadcasts the result of T2 reduces [1] back over the reduced dims');
  });
});

describe('normalization acceptors', () => {
  it('softmax, layer_norm: inner persistent; the other two kinds refuse with the reduction type', () => {
    for (const x of [softmax(), layerNorm()]) {
      expect(canScheduleNormalization('inner_persistent', x.fusion, info(x))).toEqual({ ok: true });
      const outer = canScheduleNormalization('outer_persistent', x.fusion, info(x));
      expect(outer.ok).toBe(false);
      if (!outer.ok) expect(outer.reason).toMatch(/^the reductions are inner \(.*\): that is inner_persistent$/);
    }
  });

  it('reduction over the outer dim broadcast back: outer persistent; inner+outer: inner_outer persistent', () => {
    const o = outerNormalization();
    expect(reductionType(reductionInfos(o.fusion))).toBe('outer');
    expect(canScheduleNormalization('outer_persistent', o.fusion, info(o))).toEqual({ ok: true });
    const io = innerOuterNormalization();
    expect(reductionType(reductionInfos(io.fusion))).toBe('inner_outer');
    expect(canScheduleNormalization('inner_outer_persistent', io.fusion, info(io))).toEqual({ ok: true });
    expect(nvFuserAcceptors().tryPick(io.fusion, info(io)).scheduler?.type).toBe('inner_outer_persistent');
  });

  it('a plain reduction has no persistent buffer and is left to the reduction scheduler', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    f.addOutput(sum(x, [1]));
    const ri = makeRuntimeInfo(f, [{ sizes: [4, 5] }]);
    const r = canScheduleNormalization('inner_persistent', f, ri);
    expect(r).toEqual({ ok: false, reason: 'no persistent buffer (nothing read by T1 is needed after it): a plain reduction' });
    expect(nvFuserAcceptors().tryPick(f, ri).scheduler?.type).toBe('reduction');
  });

  it('a row larger than the register / shared-memory budget is refused with its bytes', () => {
    const x = softmax([64, 1, 1 << 18]);
    const r = canScheduleNormalization('inner_persistent', x.fusion, info(x));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toContain('persistent buffers T1, T5 need 524288 bytes per row (2097152 as computed, 524288 projected to the inputs)');
      expect(r.reason).toContain(`more than the ${persistentBufferBudget(H100_PROPERTIES, 4)} bytes`);
    }
  });

  it('a large row with too few rows to fill the device is refused (nvFuser: not enough blocks)', () => {
    const x = softmax([1, 1, 16384]);
    const r = canScheduleNormalization('inner_persistent', x.fusion, info(x));
    expect(r).toEqual({ ok: false, reason: 'rows of 16384 elements but only 1 rows (fewer than 16): too few blocks for a persistent kernel' });
  });
});

describe('persistent buffers', () => {
  it('softmax keeps the fp32 input and exp across their reductions; projected to the fp16 input', () => {
    const x = softmax([2, 4, 40]);
    expect(names(persistentBuffers(x.fusion).map((b) => b.tv))).toEqual(['T1', 'T5']);
    const size = persistentBufferBytes(x.fusion, info(x));
    expect(size).toMatchObject({ bufferBytes: 2 * 40 * 4, projectedBytes: 40 * 2, bytes: 40 * 2, maxDtypeBytes: 4 });
  });

  it('layer_norm keeps the fp32 cast of the input (bf16 when projected); weight and bias are not buffers', () => {
    const x = layerNorm(8, 1024);
    expect(names(persistentBuffers(x.fusion).map((b) => b.tv))).toEqual(['T3']);
    expect(persistentBufferBytes(x.fusion, info(x))).toMatchObject({ bufferBytes: 4096, projectedBytes: 2048, bytes: 2048 });
  });

  it('the budget is the larger of half the register file and the opt-in shared memory left', () => {
    expect(persistentBufferBudget(H100_PROPERTIES, 4)).toBe(227 * 1024 - 1024 - 1024 * 4);
  });
});

describe('no_op, expr_eval, acceptor sets', () => {
  it('no_op takes fusions whose outputs are all empty; nvFuser priority puts it before pointwise', () => {
    const f = new Fusion();
    const a = makeTensor(f, { shape: [-1, -1] });
    f.addInput(a);
    f.addOutput(add(a, 1));
    const empty = makeRuntimeInfo(f, [{ sizes: [0, 7] }]);
    expect(canScheduleNoOp(f, empty)).toEqual({ ok: true });
    expect(nvFuserAcceptors().tryPick(f, empty).scheduler?.type).toBe('no_op');
    const full = makeRuntimeInfo(f, [{ sizes: [3, 7] }]);
    expect(canScheduleNoOp(f, full)).toEqual({ ok: false, reason: 'output T1 has 21 elements to compute' });
    const pick = nvFuserAcceptors().tryPick(f, full);
    expect(pick.scheduler?.type).toBe('pointwise');
    expect(pick.rejected.map((r) => r.type)).toEqual(['expr_eval', 'no_op', 'matmul', 'attention', 'reduction']);
  });

  it('registryAcceptors are the registry schedulers (softmax: refused by both, taken by inner_persistent)', () => {
    const x = softmax();
    const r = registryAcceptors(defaultSchedulerRegistry()).tryPick(x.fusion, info(x));
    expect(r.scheduler?.type).toBe('inner_persistent');
    expect(r.rejected.map((j) => j.type)).toEqual(['expr_eval', 'matmul', 'attention', 'transpose', 'pointwise', 'reduction']);
  });

  it('summarizeRejections groups identical reasons and drops expr_eval / no_op', () => {
    const s = summarizeRejections([
      { type: 'expr_eval', reason: 'x' },
      { type: 'no_op', reason: 'y' },
      { type: 'reduction', reason: 'apart' },
      { type: 'pointwise', reason: 'a reduction' },
      { type: 'inner_persistent', reason: 'apart' },
    ]);
    expect(s).toBe('reduction, inner_persistent: apart; pointwise: a reduction');
  });
});
