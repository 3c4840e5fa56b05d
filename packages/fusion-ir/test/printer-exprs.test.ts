// Every Expr kind printed in nvFuser's format, checked against hand-written nvFuser text.
import { describe, expect, it } from 'vitest';
import * as ops from '../src/index.js';
import {
  CatOp,
  ExpandOp,
  Fusion,
  FullOp,
  IotaOp,
  LoadStoreOp,
  Merge,
  PadOp,
  SliceOp,
  Split,
  SqueezeOp,
  TensorDomain,
  ViewOp,
  WelfordOp,
  exprToInlineString,
  exprToString,
  makeTensor,
  type Expr,
  type TensorView,
} from '../src/index.js';

function setup(): { fusion: Fusion; t0: TensorView; t1: TensorView } {
  const fusion = new Fusion();
  const t0 = makeTensor(fusion, { shape: [-1, -1] });
  const t1 = makeTensor(fusion, { shape: [-1, -1] });
  fusion.addInput(t0);
  fusion.addInput(t1);
  return { fusion, t0, t1 };
}

function defOf(tv: TensorView | ops.Scalar): Expr {
  if (tv.definition === null) throw new Error('no definition');
  return tv.definition;
}

const T0 = 'T0_g[ iS0{i0}, iS1{i1} ]';
const T1 = 'T1_g[ iS2{i2}, iS3{i3} ]';

describe('exprToString', () => {
  it('UnaryOp: float math gets the f suffix, casts their cast function, neg is a prefix', () => {
    const { t0 } = setup();
    expect(exprToString(defOf(ops.exp(t0)))).toBe(`T2_l[ iS4{i0}, iS5{i1} ]\n   = expf(${T0});\n`);
    expect(exprToString(defOf(ops.neg(t0)))).toBe(`T3_l[ iS6{i0}, iS7{i1} ]\n   = -${T0};\n`);
    expect(exprToString(defOf(ops.cast(t0, 'Half')))).toBe(`T4_l[ iS8{i0}, iS9{i1} ]\n   = __float2half(${T0});\n`);
    expect(exprToString(defOf(ops.relu(t0)))).toContain('   = relu(T0_g');
    expect(exprToString(defOf(ops.round(ops.cast(t0, 'Double'))))).toContain('   = nearbyint(T');
  });

  it('UnaryOp on scalars prints one line', () => {
    const { fusion } = setup();
    const i = fusion.newSymbolicScalar('Int');
    const d = ops.cast(i, 'Double');
    expect(exprToString(defOf(d))).toBe(`d${d.name} = (double)(i${i.name});\n`);
    expect(exprToString(defOf(ops.cast(d, 'Half')))).toMatch(/^f\d+ = __double2half\(d\d+\);\n$/);
  });

  it('BinaryOp: infix ops break before the operator, calls before the comma', () => {
    const { fusion, t0, t1 } = setup();
    expect(exprToString(defOf(ops.sub(t0, t1)))).toBe(`T2_l[ iS4{i0}, iS5{i1} ]\n   = ${T0}\n   - ${T1};\n`);
    expect(exprToString(defOf(ops.pow(t0, fusion.constant(3, 'Double'))))).toBe(
      `T3_l[ iS6{i0}, iS7{i1} ]\n   = pow(${T0}\n  , double(3));\n`,
    );
    expect(exprToString(defOf(ops.atan2(t0, t1)))).toContain(`   = atan2f(${T0}\n  , ${T1});`);
    expect(exprToString(defOf(ops.maximum(t0, t1)))).toContain(`   = fmax(${T0}`);
    expect(exprToString(defOf(ops.eq(t0, t1)))).toContain(`\n   == ${T1};`);
    expect(exprToString(defOf(ops.add(t0, 2)))).toContain(`\n   + 2;`);
  });

  it('BinaryOp on scalars prints one line and inlines nothing', () => {
    const { t0 } = setup();
    const [a, b] = t0.domain.logical as [ops.IterDomain, ops.IterDomain];
    const prod = ops.mul(a.extent, b.extent);
    expect(exprToString(defOf(prod))).toBe(`i${prod.name} = i0 * i1;\n`);
    const q = ops.ceilDiv(prod, t0.fusion.index(4));
    expect(exprToString(defOf(q))).toBe(`i${q.name} = ceilDiv(i${prod.name}, 4);\n`);
    expect(exprToInlineString(defOf(q))).toBe('ceilDiv(( i0 * i1 ), 4)');
  });

  it('TernaryOp puts each operand after the first on its own line', () => {
    const { fusion, t0, t1 } = setup();
    const c = makeTensor(fusion, { shape: [-1, -1], dtype: 'Bool' });
    fusion.addInput(c);
    const w = ops.where(c, t0, t1) as TensorView;
    expect(exprToString(defOf(w))).toBe(
      `T3_l[ iS6{i4}, iS7{i5} ]\n   = where(T2_g[ iS4{i4}, iS5{i5} ]\n  , ${T0}\n  , ${T1});\n`,
    );
  });

  it('ReductionOp prints op, initial value and allreduce', () => {
    const { t0 } = setup();
    expect(exprToString(defOf(ops.sum(t0, [1])))).toBe(
      `T2_l[ iS4{i0}, rS5{i1} ]\n   = reduction( ${T0}, op = add, initial value = float(0), allreduce = false )\n`,
    );
    expect(exprToString(defOf(ops.max(t0, [0])))).toContain('op = fmax, initial value = float(-inf), allreduce = false )');
    expect(exprToString(defOf(ops.prod(ops.cast(t0, 'Int'), [0])))).toContain('op = mul, initial value = 1, allreduce = false )');
  });

  it('WelfordOp of single values and of partial results', () => {
    const { fusion, t0 } = setup();
    const out = (): TensorView => fusion.newTensorFromDomain([fusion.newIterDomain(fusion.newSymbolicScalar('Index'), 'Iteration'), fusion.newIterDomain(t0.domain.logical[1]?.extent ?? fusion.index(1), 'Reduction')], 'Float');
    const [avg, m2, n] = [out(), out(), out()];
    const w = new WelfordOp(fusion, { avg, varSum: m2, n }, { avg: t0, varSum: null, n: fusion.index(1) });
    expect(exprToString(w)).toBe(
      `${ops.tensorViewToString(avg)}(Avg),\n${ops.tensorViewToString(m2)}(Var),\n${ops.tensorViewToString(n)}(Count)\n = Welford ( ${T0}(Avg), \n  allreduce = false )\n`,
    );
    const [a2, v2, n2] = [out(), out(), out()];
    const merge = new WelfordOp(fusion, { avg: a2, varSum: v2, n: n2 }, { avg, varSum: m2, n });
    expect(exprToString(merge)).toContain(` = Welford ( ${ops.tensorViewToString(avg)}(Avg)\n  ${ops.tensorViewToString(m2)}(Var)\n  ${ops.tensorViewToString(n)}(Count)\n  allreduce = false )\n`);
  });

  it('BroadcastOp and SqueezeOp', () => {
    const { fusion, t0 } = setup();
    const b = ops.broadcast(t0, [false, true, false]);
    expect(exprToString(defOf(b))).toBe(`T2_l[ iS4{i0}, bS5{1}, iS6{i1} ]\n   = broadcast( ${T0} )\n`);
    const sq = fusion.newTensorFromDomain([fusion.newIterDomain(t0.domain.logical[0]?.extent ?? fusion.index(1), 'Iteration'), fusion.newIterDomain(fusion.index(1), 'Iteration')], 'Float');
    new SqueezeOp(fusion, sq, b, [false, true, false]);
    expect(exprToString(defOf(sq))).toBe(`${ops.tensorViewToString(sq)}\n   = squeeze( ${ops.tensorViewToString(b)} )\n`);
  });

  it('ExpandOp and ViewOp print on one line; expanded broadcasts show `ex`', () => {
    const { fusion, t0 } = setup();
    const b = ops.broadcast(t0, [false, false, true]);
    const target = fusion.newSymbolicScalar('Index');
    const [x, y] = t0.domain.logical as [ops.IterDomain, ops.IterDomain];
    const ids = [fusion.newIterDomain(x.extent, 'Iteration'), fusion.newIterDomain(y.extent, 'Iteration'), fusion.newIterDomain(fusion.index(1), 'Broadcast', { expandedExtent: target })];
    const e = fusion.newTensorFromDomain(ids, 'Float');
    new ExpandOp(fusion, e, b, [x.extent, y.extent, target]);
    expect(exprToString(defOf(e))).toBe(
      `T3_l[ iS7{i0}, iS8{i1}, bS9{1 ex i${target.name}} ] = expand( ${ops.tensorViewToString(b)}, {i0, i1, i${target.name}} )\n`,
    );
    const flat = fusion.newTensorFromDomain([fusion.newIterDomain(ops.mul(x.extent, y.extent), 'Iteration')], 'Float');
    new ViewOp(fusion, flat, t0, [x.extent, y.extent], [flat.domain.logical[0]?.extent ?? x.extent]);
    expect(exprToString(defOf(flat))).toBe(`T4_l[ iS10{( i0 * i1 )} ] = view( ${T0} )\n`);
  });

  it('LoadStoreOp: Set, and Set.Permute for a permuting copy', () => {
    const { fusion, t0 } = setup();
    const [x, y] = t0.domain.logical as [ops.IterDomain, ops.IterDomain];
    const copy = fusion.newTensorFromDomain([fusion.newIterDomain(x.extent, 'Iteration'), fusion.newIterDomain(y.extent, 'Iteration')], 'Float');
    new LoadStoreOp(fusion, 'Set', copy, t0);
    expect(exprToString(defOf(copy))).toBe(`T2_l[ iS4{i0}, iS5{i1} ]\n   = Set( ${T0} )\n`);
    const r0 = fusion.newIterDomain(x.extent, 'Iteration');
    const r1 = fusion.newIterDomain(y.extent, 'Iteration');
    const perm = fusion.newTensorView(new TensorDomain({ root: [r0, r1], logical: [r1, r0] }), 'Float');
    new LoadStoreOp(fusion, 'Set', perm, t0, [1, 0]);
    expect(exprToString(defOf(perm))).toBe(`T3_l[ iS7{i1}, iS6{i0} ]\n   = Set.Permute( ${T0} )\n`);
    const seg = fusion.newTensorFromDomain([fusion.newIterDomain(x.extent, 'Iteration'), fusion.newIterDomain(y.extent, 'Iteration')], 'Float');
    new LoadStoreOp(fusion, 'SegmenterSet', seg, t0);
    expect(exprToString(defOf(seg))).toContain(`   = SegmenterSet( ${T0} )\n`);
  });

  it('SliceOp, PadOp (widths outermost dim first) and CatOp', () => {
    const { fusion, t0, t1 } = setup();
    const [x, y] = t0.domain.logical as [ops.IterDomain, ops.IterDomain];
    const idx = (n: number): ops.Scalar => fusion.index(n);
    const sl = fusion.newTensorFromDomain([fusion.newIterDomain(idx(2), 'Iteration'), fusion.newIterDomain(y.extent, 'Iteration')], 'Float');
    new SliceOp(fusion, sl, t0, [{ start: idx(1), stop: idx(3), step: idx(1) }, { start: idx(0), stop: y.extent, step: idx(1) }]);
    expect(exprToString(defOf(sl))).toBe(`T2_l[ iS4{2}, iS5{i1} ]\n   = slice( ${T0}, { {1, 3, 1} {0, i1, 1} } )\n`);
    const padded = fusion.newTensorFromDomain([fusion.newIterDomain(x.extent, 'Iteration'), fusion.newIterDomain(ops.add(y.extent, idx(3)), 'Iteration')], 'Float');
    new PadOp(fusion, padded, t0, [idx(1), idx(2)], fusion.constant(0, 'Float'));
    expect(exprToString(defOf(padded))).toBe(`T3_l[ iS6{i0}, iS7{( i1 + 3 )} ]\n   = pad( ${T0}, {0, 0, 1, 2} )\n`);
    const cat = fusion.newTensorFromDomain([fusion.newIterDomain(ops.add(x.extent, t1.domain.logical[0]?.extent ?? x.extent), 'Iteration'), fusion.newIterDomain(y.extent, 'Iteration')], 'Float');
    new CatOp(fusion, cat, [t0, t1], 0);
    expect(exprToString(defOf(cat))).toBe(`T4_l[ iS8{( i0 + i2 )}, iS9{i1} ]\n   = cat( ${T0}, ${T1}, 0 )\n`);
  });

  it('FullOp and IotaOp', () => {
    const { fusion, t0 } = setup();
    const [x, y] = t0.domain.logical as [ops.IterDomain, ops.IterDomain];
    const full = fusion.newTensorFromDomain([fusion.newIterDomain(x.extent, 'Iteration'), fusion.newIterDomain(y.extent, 'Iteration')], 'Float');
    new FullOp(fusion, full, fusion.constant(0.5, 'Float'), [x.extent, y.extent]);
    expect(exprToString(defOf(full))).toBe('T2_l[ iS4{i0}, iS5{i1} ]\n   = full({i0, i1}, float(0.5));\n');
    const iota = fusion.newTensorFromDomain([fusion.newIterDomain(x.extent, 'Iteration')], 'Int');
    new IotaOp(fusion, iota, x.extent, fusion.constant(0, 'Int'), fusion.constant(1, 'Int'), 'Int');
    expect(exprToString(defOf(iota))).toBe('T3_l[ iS6{i0} ]\n   = iota(i0, 0, 1, int64_t);\n');
  });

  it('Split (inner and outer) and Merge', () => {
    const { fusion, t0 } = setup();
    const [x, y] = t0.domain.logical as [ops.IterDomain, ops.IterDomain];
    const four = fusion.index(4);
    const o = fusion.newIterDomain(ops.ceilDiv(x.extent, four), 'Iteration');
    const i = fusion.newIterDomain(four, 'Iteration');
    expect(exprToString(new Split(fusion, o, i, x, four, true))).toBe('Split: iS0{i0} by factor 4 -> iS4{( ceilDiv(i0, 4) )}, iS5{4}\n');
    const o2 = fusion.newIterDomain(four, 'Iteration');
    const i2 = fusion.newIterDomain(ops.ceilDiv(y.extent, four), 'Iteration');
    expect(exprToString(new Split(fusion, o2, i2, y, four, false))).toBe('Outer split: iS1{i1} by factor 4 -> iS6{4}, iS7{( ceilDiv(i1, 4) )}\n');
    const m = fusion.newIterDomain(ops.mul(o.extent, i.extent), 'Iteration');
    expect(exprToString(new Merge(fusion, m, o, i))).toBe('Merge: iS4{( ceilDiv(i0, 4) )} and iS5{4} -> iS8{( ( ceilDiv(i0, 4) ) * 4 )}\n');
  });

  it('indents nested expressions by two spaces per level', () => {
    const { t0, t1 } = setup();
    expect(exprToString(defOf(ops.add(t0, t1)), 1)).toBe(`  T2_l[ iS4{i0}, iS5{i1} ]\n     = ${T0}\n     + ${T1};\n`);
  });

  it('refuses to inline tensor expressions', () => {
    const { t0 } = setup();
    expect(() => exprToInlineString(defOf(ops.exp(t0)))).toThrow(/cannot be printed inline/);
  });
});
