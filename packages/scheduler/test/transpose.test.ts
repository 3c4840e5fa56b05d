// The transpose scheduler's choice and heuristics (nvFuser's rules): which fusions it takes over
// the pointwise scheduler (two groups with different innermost dims, at least a full wave of
// 32×32 tiles, transposed dims not too small), the refusal reasons `--explain` shows, the
// TransposeParams it computes for the bench sizes (f32 / bf16 16384×4096), and its
// scheduler_params dump.
import { describe, expect, it } from 'vitest';
import { add, broadcast, Fusion, lt, makeTensor, mul, permute, strideOrder, sum, where, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { computeTransposeHeuristics, defaultSchedulerRegistry, heuristicParamsToString, makeRuntimeInfo, TransposeScheduler, type RuntimeInfo } from '../src/index.js';

function contiguous(tv: TensorView): TensorView {
  const rank = tv.domain.logicalNoReductions().length;
  return strideOrder(tv, [...Array(rank).keys()].map((d) => rank - 1 - d));
}

function permuteFusion(dtype: DataType, rank: number, perm: number[], before = false): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype });
  f.addInput(x);
  f.addOutput(before ? mul(permute(add(x, 1), perm), 2) : contiguous(permute(x, perm)));
  return f;
}

function info(f: Fusion, sizes: number[][], strides?: number[][]): RuntimeInfo {
  return makeRuntimeInfo(f, sizes.map((s, i) => ({ sizes: s, ...(strides?.[i] === undefined ? {} : { strides: strides[i] }) })));
}

function picked(f: Fusion, ri: RuntimeInfo): string {
  return defaultSchedulerRegistry().pick(f, ri).scheduler.type;
}

describe('transpose scheduler choice', () => {
  it('takes 2-D transposes of a full wave or more, in f32 and bf16, with pointwise work around', () => {
    expect(picked(permuteFusion('Float', 2, [1, 0]), info(permuteFusion('Float', 2, [1, 0]), [[16384, 4096]]))).toBe('transpose');
    const bf = permuteFusion('BFloat16', 2, [1, 0]);
    expect(picked(bf, info(bf, [[16384, 4096]]))).toBe('transpose');
    const pw = permuteFusion('Float', 2, [1, 0], true);
    expect(picked(pw, info(pw, [[333, 517]]))).toBe('transpose');
  });
  it('takes a permuted (stride-order) input read into a contiguous output', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float', strideOrder: [0, 1] });
    f.addInput(x);
    f.addOutput(mul(x, 2));
    expect(picked(f, info(f, [[4096, 1024]], [[1, 4096]]))).toBe('transpose');
  });
  it('takes a stride-ordered output whose innermost dim is not the input’s', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
    f.addInput(x);
    f.addOutput(strideOrder(mul(x, 2), [0, 1]));
    expect(picked(f, info(f, [[1024, 1024]]))).toBe('transpose');
  });
  it('leaves [B,H,S,D] → [B,S,H,D] to the pointwise scheduler (D stays innermost: one group)', () => {
    const f = permuteFusion('BFloat16', 4, [0, 2, 1, 3]);
    const ri = info(f, [[8, 32, 4096, 128]]);
    expect(new TransposeScheduler().canSchedule(f, ri)).toEqual({ ok: false, reason: 'cannot find two mismatching inner most dimensions' });
    expect(picked(f, ri)).toBe('pointwise');
  });
  it('leaves a second-group input broadcast before the transposed output to the pointwise scheduler (no cache to stage)', () => {
    // A GPU-suite random case (seed 26105 #19): T0 read dim-0-innermost, broadcast, written
    // contiguous. The transpose schedule caches only inputs of the reference's rank, so T0 had no
    // load nest for transpose-smem-tile and lowering failed after acceptance.
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1, -1], dtype: 'Double' });
    f.addInput(x);
    f.addOutput(mul(broadcast(x, [false, true, false, false]), 2));
    const ri = info(f, [[255, 2, 513]], [[1, 256, 512]]);
    const r = new TransposeScheduler().canSchedule(f, ri);
    expect(r).toEqual({ ok: false, reason: 'input T0 of the second group has rank 3, the reference T2 rank 4 (a broadcast between them): its reads cannot be staged through a shared-memory tile' });
    expect(picked(f, ri)).toBe('pointwise');
  });
  it('leaves small problems and small transposed dims to the pointwise scheduler, as nvFuser', () => {
    const f = permuteFusion('Float', 2, [1, 0]);
    expect(new TransposeScheduler().canSchedule(f, info(f, [[136, 132]]))).toEqual({ ok: false, reason: 'Transpose scheduler does not perform well on small problem sizes.' });
    expect(picked(f, info(f, [[136, 132]]))).toBe('pointwise');
    const g = permuteFusion('Float', 3, [0, 2, 1]);
    const r = new TransposeScheduler().canSchedule(g, info(g, [[40000, 2, 3]]));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/^Inner transpose of small dimensions/);
    expect(picked(g, info(g, [[40000, 2, 3]]))).toBe('pointwise');
    const h = permuteFusion('Float', 2, [1, 0]);
    const thin = new TransposeScheduler().canSchedule(h, info(h, [[16, 1 << 20]]));
    expect(thin.ok).toBe(false);
  });
  it('refuses reductions, and leaves a plain permute to expr_eval (a view)', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
    f.addInput(x);
    f.addOutput(sum(permute(x, [1, 0]), [0]));
    expect(new TransposeScheduler().canSchedule(f, info(f, [[1024, 1024]])).ok).toBe(false);
    const v = new Fusion();
    const y = makeTensor(v, { shape: [-1, -1], dtype: 'Float' });
    v.addInput(y);
    v.addOutput(permute(y, [1, 0]));
    expect(picked(v, info(v, [[1024, 1024]]))).toBe('expr_eval');
  });
  it('refuses three distinct innermost dims', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1, -1], dtype: 'Float' });
    const y = makeTensor(f, { shape: [-1, -1, -1], dtype: 'Float' });
    f.addInput(x);
    f.addInput(y);
    f.addOutput(add(permute(x, [0, 2, 1]), permute(y, [2, 1, 0])));
    const r = new TransposeScheduler().canSchedule(f, info(f, [[64, 64, 64], [64, 64, 64]]));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/three or more distinct innermost dims/);
  });
});

describe('transpose heuristics', () => {
  it('f32 16384×4096: large 64×64 tiles of 256 threads, 16-byte vectors on both sides, one tile per block', () => {
    const f = permuteFusion('Float', 2, [1, 0]);
    const p = computeTransposeHeuristics(f, info(f, [[16384, 4096]]));
    expect(p).toMatchObject({ innerDim1: 1, innerDim2: 0, tileSize1: 64, tileSize2: 64, vectorizeFactor1: 4, vectorizeFactor2: 4, group2Inputs: [0], vectorizedOutputs: [0], divisibleSplits: [true, true] });
    expect(p.lparams).toMatchObject({ bdimx: 256, gdimx: (16384 / 64) * (4096 / 64) });
  });
  it('bf16 16384×4096: 64×64 tiles of 256 threads, vectors of 8', () => {
    const f = permuteFusion('BFloat16', 2, [1, 0]);
    const p = computeTransposeHeuristics(f, info(f, [[16384, 4096]]));
    expect(p).toMatchObject({ tileSize1: 64, tileSize2: 64, vectorizeFactor1: 8, vectorizeFactor2: 8 });
    expect(p.lparams).toMatchObject({ bdimx: 256, gdimx: (16384 / 64) * (4096 / 64) });
  });
  it('keeps 32×32 tiles of 128 threads where 64×64 tiles would fill less than two waves, or for 8-byte dtypes', () => {
    const f = permuteFusion('Float', 2, [1, 0]);
    const p = computeTransposeHeuristics(f, info(f, [[2048, 2048]])); // 1024 tiles of 64 < 2 × 132 × 8
    expect(p).toMatchObject({ tileSize1: 32, tileSize2: 32 });
    expect(p.lparams).toMatchObject({ bdimx: 128, gdimx: (2048 / 32) * (2048 / 32) });
    const d = permuteFusion('Double', 2, [1, 0]);
    expect(computeTransposeHeuristics(d, info(d, [[16384, 4096]]))).toMatchObject({ tileSize1: 32, tileSize2: 32 });
  });
  it('a blockDim.x override (tuning experiments) changes the threads, not the tile; one that does not divide the tile is refused', () => {
    const f = permuteFusion('Float', 2, [1, 0]);
    const p = computeTransposeHeuristics(f, info(f, [[16384, 4096]]), { tileSize: 64, bdimx: 256 });
    expect(p).toMatchObject({ tileSize1: 64, tileSize2: 64, vectorizeFactor1: 4 });
    expect(p.lparams).toMatchObject({ bdimx: 256, gdimx: (16384 / 64) * (4096 / 64) });
    expect(() => computeTransposeHeuristics(f, info(f, [[16384, 4096]]), { bdimx: 96 })).toThrow('blockDim.x 96 does not divide the 1024 vectors of a 64×64 tile');
  });
  it('odd sizes: narrower vectors where the sizes allow no wider, tiles not divisible', () => {
    const f = permuteFusion('Float', 2, [1, 0], true);
    const p = computeTransposeHeuristics(f, info(f, [[334, 517]]));
    expect(p).toMatchObject({ vectorizeFactor1: 2, vectorizeFactor2: 1, divisibleSplits: [false, false] });
  });
  it('prints nvFuser’s Transpose Parameters block (scheduler_params)', () => {
    const f = permuteFusion('Float', 2, [1, 0]);
    const text = heuristicParamsToString(computeTransposeHeuristics(f, info(f, [[16384, 4096]])));
    expect(text).toBe(
      [
        '',
        '===== Transpose Parameters ========',
        'Tag: Transpose heuristics Transpose Characteristics:',
        ' BlckX: 256',
        ' input tile size: 64',
        ' output tile size: 64',
        ' elements per tile: 4096',
        ' elements per thread: 16',
        'Vectorize group 1, Factor: 4',
        'Unroll group 1, Factor: 4',
        'Vectorize group 2, Factor: 4',
        'Unroll group 2, Factor: 4',
        'Inner dims in the reference: group 1 1, group 2 0',
        'Staged through shared memory: inputs [0]',
        'Index type: int',
        'Divisible splits: [true, true]',
        '====================================',
        '',
      ].join('\n'),
    );
  });
});

describe('transpose schedule: input caches', () => {
  // Caching one input rewrites the exprs it feeds; an input read by the same expr (where(c, y, x))
  // must still get its cache, or the second group's shared-memory staging finds no cache load
  // (GPU-suite random case seed 6012 #37: "T1 is not read by one cache load nest").
  it('every input of the reference rank is read through its own cache, also when two inputs feed one expr', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Half' });
    const y = makeTensor(f, { shape: [-1, -1], dtype: 'Half', strideOrder: [0, 1] });
    f.addInput(x);
    f.addInput(y);
    f.addOutput(where(lt(x, 0), y, x) as TensorView);
    const ri = info(f, [[1024, 1024], [1024, 1024]], [[1024, 1], [1, 1024]]);
    const scheduler = new TransposeScheduler();
    expect(scheduler.canSchedule(f, ri).ok).toBe(true);
    const params = scheduler.computeHeuristics(f, ri);
    const scheduled = scheduler.schedule(f.clone().fusion, params).fusion;
    for (const input of scheduled.inputs) {
      expect(input.uses.length).toBe(1);
      expect(input.uses.map((u) => u.kind)).toEqual(['LoadStoreOp']);
    }
  });
});
