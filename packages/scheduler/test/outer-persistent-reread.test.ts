// When the outer persistent heuristics choose the re-read form (src/outer-persistent/
// reread-buffers.ts, issue 38): softmax over the outer dim of the sweep's [8192–16384, 4096]
// (f32 and bf16, forward and backward), where the register budget leaves the persistent block
// less than a 32-byte sector of each row; not at [1024, 4096] where it fits 32 columns, not for
// narrow tensors whose width is the limit, not for Welford (batch_norm: nvFuser's grid
// persistence is the answer there), not with forced block shapes. The re-read block fills a
// sector of every row, gives the grid at least a block per SM when the columns allow, and covers
// the column; the schedule leaves no persistent buffer of the column's length (loopPhases).
import { describe, expect, it } from 'vitest';
import { batchNorm, broadcast, cast, exp, Fusion, makeTensor, max, mul, reciprocal, sub, sum, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { chooseRereadBlock, makeRuntimeInfo, OuterPersistentScheduler, type OuterPersistentParams } from '../src/index.js';
import { loopPhases, reductionPhases } from '../src/persistent/persistence.js';

const overRows = (t: TensorView): TensorView => broadcast(t, [true, false]);
const f32 = (t: TensorView): TensorView => (t.dtype === 'Float' ? t : cast(t, 'Float'));

function input(f: Fusion, rank: number, dtype: DataType): TensorView {
  const t = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype });
  f.addInput(t);
  return t;
}

function softmaxOuter(dtype: DataType): Fusion {
  const f = new Fusion();
  const x = f32(input(f, 2, dtype));
  const e = exp(sub(x, overRows(max(x, [0]))));
  const y = mul(e, reciprocal(overRows(sum(e, [0]))));
  f.addOutput(dtype === 'Float' ? y : cast(y, dtype));
  return f;
}

function softmaxBackwardOuter(dtype: DataType): Fusion {
  const f = new Fusion();
  const dy = f32(input(f, 2, dtype));
  const y = f32(input(f, 2, dtype));
  const dx = mul(y, sub(dy, overRows(sum(mul(dy, y), [0]))));
  f.addOutput(dtype === 'Float' ? dx : cast(dx, dtype));
  return f;
}

function params(f: Fusion, sizes: number[][], s = new OuterPersistentScheduler()): OuterPersistentParams {
  const info = makeRuntimeInfo(f, sizes.map((x) => ({ sizes: x })));
  const ok = s.canSchedule(f, info);
  if (!ok.ok) throw new Error(ok.reason);
  const p = s.computeHeuristics(f, info);
  if (p.schedulerType !== 'outer_persistent') throw new Error('not outer persistent');
  return p;
}

const bytes = (d: DataType): number => (d === 'Float' ? 4 : 2);

describe('outer persistent heuristics: the re-read form', () => {
  it("is chosen for the sweep's softmax_outer / softmax_bwd_outer at 8192 and 16384 rows, with a sector-wide block over the whole column", () => {
    for (const dtype of ['Float', 'BFloat16'] as const) {
      for (const rows of [8192, 16384]) {
        for (const [name, build, n] of [['softmax_outer', softmaxOuter, 1], ['softmax_bwd_outer', softmaxBackwardOuter, 2]] as const) {
          const p = params(build(dtype), Array.from({ length: n }, () => [rows, 4096]));
          const what = `${name} ${dtype} ${rows}x4096`;
          expect(p.rereadPersistentBuffers, what).toBe(true);
          const { bdimx, bdimy, gdimx } = p.lparams;
          expect(bdimx * bytes(dtype), `${what}: bytes of each row a block reads`).toBeGreaterThanOrEqual(32);
          expect(gdimx, what).toBeGreaterThanOrEqual(132);
          expect(gdimx * bdimx, what).toBeGreaterThanOrEqual(4096);
          expect(bdimy * p.batchesPerBlockInnerReduction, what).toBeGreaterThanOrEqual(rows);
          expect(bdimx * bdimy, what).toBeLessThanOrEqual(1024);
        }
      }
    }
  });

  it('is not chosen where the persistent block reads a sector of each row, for narrow tensors, for Welford, or with a forced block', () => {
    for (const dtype of ['Float', 'BFloat16'] as const) {
      expect(params(softmaxOuter(dtype), [[1024, 4096]]).rereadPersistentBuffers, `${dtype} 1024x4096`).toBeUndefined();
      // (canSchedule refuses so few columns; the heuristics alone still decide.)
      const narrow = softmaxOuter(dtype);
      const narrowParams = new OuterPersistentScheduler().computeHeuristics(narrow, makeRuntimeInfo(narrow, [{ sizes: [1024, 3] }]));
      expect(narrowParams.schedulerType === 'outer_persistent' && narrowParams.rereadPersistentBuffers, `${dtype} 1024x3`).toBeUndefined();
      const f = new Fusion();
      const x = input(f, 2, dtype);
      f.addOutput(batchNorm(x, null, null, null, null, 0.1, 1e-5, true).output);
      expect(params(f, [[8192, 4096]]).rereadPersistentBuffers, `${dtype} Welford batch_norm 8192x4096`).toBeUndefined();
    }
    const forced = new OuterPersistentScheduler({ bdimx: 8, batches: 64 });
    expect(params(softmaxOuter('BFloat16'), [[8192, 4096]], forced).rereadPersistentBuffers).toBeUndefined();
    const off = new OuterPersistentScheduler({ reread: false });
    expect(params(softmaxOuter('BFloat16'), [[8192, 4096]], off).rereadPersistentBuffers).toBeUndefined();
  });

  it('chooseRereadBlock: a sector per row, a block per SM where the columns allow, the column covered', () => {
    for (const [columns, length, el] of [[4096, 8192, 2], [4096, 16384, 4], [64, 100000, 2], [5, 7, 4], [1, 1, 1], [100000, 3, 2]] as const) {
      const b = chooseRereadBlock(columns, length, el, 132);
      const what = `${columns} columns of ${length}, ${el}-byte elements`;
      expect(b.bdimx * b.bdimy, what).toBeLessThanOrEqual(1024);
      expect(b.bdimy * b.batches, what).toBeGreaterThanOrEqual(length);
      expect(b.bdimy * (b.batches - 1), what).toBeLessThan(length);
      expect(b.bdimx < 2 * columns || b.bdimx === 1, what).toBe(true);
      if (columns >= 32 / el) expect(b.bdimx * el, what).toBeGreaterThanOrEqual(32);
    }
  });

  it('the re-read schedule keeps no persistent buffer of the column length', () => {
    for (const [build, n] of [[softmaxOuter, 1], [softmaxBackwardOuter, 2]] as const) {
      const f = build('BFloat16');
      const s = new OuterPersistentScheduler();
      const p = params(f, Array.from({ length: n }, () => [8192, 4096]), s);
      const scheduled = s.schedule(f, p).fusion;
      const { persistent } = loopPhases(scheduled, reductionPhases(scheduled, () => true));
      const long = [...persistent].filter((tv) => !tv.isFusionInput() && tv.domain.logicalNoReductions().every((id) => !id.isBroadcast()));
      expect(long.map((tv) => `T${tv.name}`)).toEqual([]);
    }
  });
});
