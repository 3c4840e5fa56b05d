// The segmenter's starting regions around library calls (library-regions.ts), on fusions whose
// shape is known: a region is one stage's connected generated-kernel exprs, a cast goes with
// its reader's stage, no region feeds itself through a library call, refused regions start as
// singletons, and a fusion without a library call starts from singletons.
import { add, cast, Fusion, linear, makeTensor, matmul, mul, permute, reshape, type Expr, type TensorView, type Val } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import { libraryCallRegions } from '../src/segmentation/library-regions.js';
import { isTensorExpr } from '../src/segmentation/group-fusion.js';

function input(f: Fusion, rank: number): TensorView {
  const tv = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype: 'BFloat16' });
  f.addInput(tv);
  return tv;
}

function regionsOf(f: Fusion, accepts: (g: ReadonlySet<Expr>) => boolean = () => true): { exprs: Expr[]; regions: Set<Expr>[] } {
  const exprs = f.exprs().filter(isTensorExpr);
  const producerOf = new Map<Val, Expr>();
  for (const e of exprs) for (const o of e.outputs) producerOf.set(o, e);
  return { exprs, regions: libraryCallRegions(exprs, producerOf, accepts) };
}

/** h = x·x → linear → y = float(h) + float(linear): h feeds the GEMM and is read again after it. */
function aroundGemm(): { f: Fusion; h: TensorView } {
  const f = new Fusion();
  const x = input(f, 2);
  const w = input(f, 2);
  const h = cast(mul(x, x), 'BFloat16');
  f.addOutput(cast(add(cast(h, 'Float'), cast(linear(h, w), 'Float')), 'BFloat16'));
  return { f, h };
}

describe('regions between library calls', () => {
  it('partitions the exprs; the region before the GEMM and the one after it are separate (no cycle)', () => {
    const { f, h } = aroundGemm();
    const { exprs, regions } = regionsOf(f);
    expect(regions.reduce((n, r) => n + r.size, 0)).toBe(exprs.length);
    expect(new Set(regions.flatMap((r) => [...r])).size).toBe(exprs.length);
    const gemm = exprs.find((e) => e.kind === 'LinearOp') as Expr;
    const before = regions.find((r) => [...r].some((e) => e.outputs.includes(h))) as Set<Expr>;
    const after = regions.find((r) => [...r].some((e) => e.outputs.includes(f.outputs[0] as Val))) as Set<Expr>;
    expect(regions.find((r) => r.has(gemm))?.size).toBe(1);
    expect(before).not.toBe(after);
    // the add's cast of h (read only after the GEMM) goes with the add, not with h's producer
    const castOfH = exprs.find((e) => e.kind === 'UnaryOp' && e.inputs[0] === h) as Expr;
    expect(after.has(castOfH)).toBe(true);
  });

  it('a region no scheduler accepts starts as singletons; without a library call every expr is alone', () => {
    const { f } = aroundGemm();
    const { exprs, regions } = regionsOf(f, () => false);
    expect(regions.length).toBe(exprs.length);
    const g = new Fusion();
    const x = input(g, 2);
    g.addOutput(mul(add(x, x), x));
    const plain = regionsOf(g);
    expect(plain.regions.map((r) => r.size)).toEqual(plain.exprs.map(() => 1));
  });

  it("a reshape of a GEMM's result and a permute only a GEMM reads start alone, outside the region", () => {
    const f = new Fusion();
    const x = input(f, 2);
    const w = input(f, 2);
    const y = reshape(linear(x, w), [2, 4, 8]); // [8, 8] result viewed as [2, 4, 8]
    const z = cast(mul(y, y), 'BFloat16');
    f.addOutput(z);
    const zt = permute(reshape(z, [8, 8]), [1, 0]); // read only by the second GEMM
    f.addOutput(matmul(zt, x));
    const { exprs, regions } = regionsOf(f);
    for (const e of exprs.filter((e) => e.kind === 'ViewOp' || e.kind === 'LoadStoreOp')) {
      expect(regions.find((r) => r.has(e))?.size, e.kind).toBe(1);
    }
    // the mul and the cast are one region
    const mulExpr = exprs.find((e) => e.kind === 'BinaryOp') as Expr;
    expect(regions.find((r) => r.has(mulExpr))?.size).toBe(2);
  });
});

