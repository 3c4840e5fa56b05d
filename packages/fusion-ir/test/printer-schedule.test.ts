// Scheduled tensors: split/merged loop domains, parallel types, vectorize/unswitch, ca_pos /
// produce_pos and rFactor (`rf`) IDs, compared with lines of nvFuser's fusion_ir_math dump of
// issue #785 and golden-tested with the TransformPrinter.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as ops from '../src/index.js';
import {
  Fusion,
  IterDomain,
  Merge,
  ReductionOp,
  Split,
  TensorDomain,
  makeTensor,
  printFusion,
  printTensorTransforms,
  tensorViewToString,
  type IterType,
  type ParallelType,
  type Scalar,
  type TensorView,
} from '../src/index.js';
import { canonicalNames, expectGolden } from './golden.js';

interface IdOptions {
  iterType?: IterType;
  parallel?: ParallelType;
  rf?: boolean;
}

function newId(fusion: Fusion, extent: Scalar, o: IdOptions, like: IterDomain): IterDomain {
  const id = fusion.newIterDomain(extent, o.iterType ?? like.iterType, { isRFactorProduct: o.rf ?? false });
  if (o.parallel !== undefined) id.parallelize(o.parallel);
  return id;
}

/** An inner split by hand: outer = ceilDiv(in, factor), inner = factor. */
function split(id: IterDomain, factor: Scalar, outer: IdOptions = {}, inner: IdOptions = {}): [IterDomain, IterDomain] {
  const fusion = id.fusion;
  const o = newId(fusion, ops.binaryOp('ceilDiv', id.extent, factor), outer, id);
  const i = newId(fusion, factor, inner, id);
  new Split(fusion, o, i, id, factor, true);
  return [o, i];
}

function merge(outer: IterDomain, inner: IterDomain, options: IdOptions = {}): IterDomain {
  const fusion = outer.fusion;
  const out = newId(fusion, ops.mul(outer.extent, inner.extent), options, outer);
  new Merge(fusion, out, outer, inner);
  return out;
}

function seedMathLine(prefix: string): string {
  const text = readFileSync(new URL('../../../test-fixtures/golden/fusion-ir/seed/issue785_fusion_ir_math.txt', import.meta.url), 'utf8');
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  if (line === undefined) throw new Error(`no line starting with ${prefix} in the seed`);
  return line;
}

/** The pointwise segment of #785: T3 = pow(T1, 3) scheduled 128 threads × vectorize 4 × unswitch. */
function scheduledPow(): { fusion: Fusion; t3: TensorView } {
  const fusion = new Fusion();
  const t1 = makeTensor(fusion, { shape: [-1, -1, -1] });
  fusion.addInput(t1);
  const t3 = ops.pow(t1, fusion.constant(3, 'Double'));
  fusion.addOutput(t3);
  const [a, b, c] = t3.domain.logical as [IterDomain, IterDomain, IterDomain];
  const all = merge(a, merge(b, c));
  const [rest, vec] = split(all, fusion.index(4), {}, { parallel: 'Vectorize' });
  const [rest2, unswitch] = split(rest, fusion.index(1), {}, { parallel: 'Unswitch' });
  const [blocks, threads] = split(rest2, fusion.index(128), { parallel: 'BIDx' }, { parallel: 'TIDx' });
  t3.domain.loop = [blocks, unswitch, vec, threads];
  t3.computeAtPosition = 2;
  t3.maxProducerPosition = 2;
  return { fusion, t3 };
}

/** The rFactor tensor T7 of #785's reduction segment, its root→logical and logical→loop exprs by hand. */
function rFactorTensor(): TensorView {
  const fusion = new Fusion();
  const t0 = makeTensor(fusion, { shape: [-1, -1, -1] });
  fusion.addInput(t0);
  const [x0, x1, x2] = t0.domain.logical as [IterDomain, IterDomain, IterDomain];
  const r0 = fusion.newIterDomain(x0.extent, 'Reduction');
  const r1 = fusion.newIterDomain(x1.extent, 'Reduction');
  const kept = fusion.newIterDomain(x2.extent, 'Iteration');
  const rf: IdOptions = { rf: true };
  const flat = merge(r0, r1, rf);
  const [perThreadY, tidy] = split(flat, fusion.namedScalar('blockDim.y'), rf, { ...rf, iterType: 'Iteration', parallel: 'TIDy' });
  const [rest, unrolled] = split(perThreadY, fusion.index(4), rf, rf);
  const [rest2, unswitch] = split(rest, fusion.index(1), rf, { ...rf, parallel: 'Unswitch' });
  const [serial, bidy] = split(rest2, fusion.namedScalar('gridDim.y'), rf, { ...rf, iterType: 'Iteration', parallel: 'BIDy' });
  const [bidx, tidx] = split(kept, fusion.namedScalar('blockDim.x'), { parallel: 'BIDx' }, { parallel: 'TIDx' });
  const logical = [kept, serial, bidy, tidy, unswitch, unrolled];
  const domain = new TensorDomain({
    root: [r0, r1, kept],
    logical,
    loop: [bidx, tidx, serial, bidy, tidy, unswitch, unrolled],
    contiguity: logical.map((id) => (id.isReduction() ? null : true)),
  });
  const t7 = fusion.newTensorView(domain, 'Float');
  new ReductionOp(fusion, 'add', fusion.constant(0, 'Float'), t7, t0);
  t7.computeAtPosition = 2;
  t7.maxProducerPosition = 6;
  fusion.addOutput(t7);
  fusion.removeOutput(t7);
  return t7;
}

describe('scheduled tensors', () => {
  it('prints parallel types, unswitch, vectorize and nested ceilDiv extents like nvFuser', () => {
    const { t3 } = scheduledPow();
    const ours = tensorViewToString(t3);
    expect(ours).toBe(
      'T1_g[ iblockIdx.x12{( ceilDiv(( ceilDiv(( ceilDiv(( i0 * ( i1 * i2 ) ), 4) ), 1) ), 128) )}, iUS11{1}, iV9{4}, ithreadIdx.x13{128} ] ca_pos( 2 ) produce_pos( 2 )',
    );
    const theirs = seedMathLine('  T3_g[ iblockIdx.x30').trim().replace(/, float$/, '');
    expect(canonicalNames(ours)).toBe(canonicalNames(theirs));
  });

  it('prints the transforms from logical to loop domain', () => {
    const { fusion, t3 } = scheduledPow();
    const text = printTensorTransforms(t3);
    expect(text).toContain('    Merge: iS4{i1} and iS5{i2} -> iS6{( i1 * i2 )}\n');
    expect(text).toContain('    Split: iS8{( ceilDiv(( i0 * ( i1 * i2 ) ), 4) )} by factor 1 -> iS10{( ceilDiv(( ceilDiv(( i0 * ( i1 * i2 ) ), 4) ), 1) )}, iUS11{1}\n');
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      '  loop domain: (iblockIdx.x12{( ceilDiv(( ceilDiv(( ceilDiv(( i0 * ( i1 * i2 ) ), 4) ), 1) ), 128) )}, iUS11{1}, iV9{4}, ithreadIdx.x13{128})',
    );
    expectGolden(printFusion(fusion, { transforms: true }), 'fusion-ir/scheduled_pow_fusion_ir.txt');
  });

  it('marks rFactor products with rf and prints root, logical and loop domains', () => {
    const t7 = rFactorTensor();
    const theirs = seedMathLine('T7_l[').replace(/\s+= .*$/, '');
    expect(canonicalNames(tensorViewToString(t7))).toBe(canonicalNames(theirs));
    const transforms = printTensorTransforms(t7);
    expect(transforms.split('\n')[0]).toBe('  root domain: (rS3{i0}, rS4{i1}, iS5{i2})');
    expect(transforms).toContain('    Merge: rS3{i0} and rS4{i1} -> rS6{( i0 * i1 )}rf\n');
    expect(transforms).toContain('\n  contiguity: t n t t n n\n    Split: iS5{i2} by factor blockDim.x -> iblockIdx.x15{( ceilDiv(i2, blockDim.x) )}, ithreadIdx.x16{blockDim.x}\n');
    expectGolden(`${tensorViewToString(t7)}\n${transforms}`, 'fusion-ir/rfactor_tensor_transforms.txt');
  });
});
