// The printer against real nvFuser text: the issue-785 pow+sum fusion (fusion_ir_presched) and the
// exercise's two batch norms lowered by parseJitIR (legacy `fusion->print()`), both built here by
// hand with ops, compared with the seed dumps after renaming T/ID/scalar numbers by first use.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as ops from '../src/index.js';
import { Fusion, makeTensor, printFusion, printKernelLegacy, printMath, type TensorView } from '../src/index.js';
import { canonicalNames, expectGolden, goldenPath } from './golden.js';

function seed(name: string): string {
  return readFileSync(goldenPath(`fusion-ir/seed/${name}`), 'utf8');
}

/** nvFuser issue #785, as its python definition builds it (the unused mul is dead code). */
function issue785Fusion(): Fusion {
  const fusion = new Fusion();
  const t4 = makeTensor(fusion, { shape: [-1, -1, -1], contiguity: [true, true, true], dtype: 'Float' });
  const t6 = makeTensor(fusion, { shape: [-1, -1, -1], contiguity: [true, true, true], dtype: 'Float' });
  fusion.addInput(t4);
  fusion.addInput(t6);
  ops.mul(fusion.constant(0.5, 'Double'), t6);
  const t10 = ops.pow(t6, fusion.constant(3, 'Double'));
  const t19 = ops.sum(t4, [0, 1]);
  fusion.addOutput(t19);
  fusion.addOutput(t10);
  return fusion;
}

interface BatchNormParams {
  x: TensorView;
  weight: TensorView;
  bias: TensorView;
  mean: TensorView;
  variance: TensorView;
}

/** Inference native_batch_norm the way parseJitIR writes it out, in its creation order. */
function batchNormInference(fusion: Fusion, p: BatchNormParams): TensorView {
  const perChannel = (t: TensorView): TensorView => ops.broadcast(t, [true, false, true, true]);
  // TorchScript's eps 1e-5 reaches nvFuser through a float: double(9.9999997473787516e-06).
  const eps = fusion.constant(Math.fround(1e-5), 'Double');
  const centered = ops.sub(p.x, perChannel(p.mean));
  const invstd = perChannel(ops.rsqrt(ops.add(p.variance, eps)));
  const normalized = ops.mul(centered, invstd);
  const scaled = ops.mul(normalized, perChannel(p.weight));
  return ops.add(scaled, perChannel(p.bias));
}

/** The seed exercise: relu(bn(%0 …) + alpha * bn(%5 …)) over 8×256×56×56, built by hand. */
export function seedExerciseFusion(): Fusion {
  const fusion = new Fusion();
  const image = (): TensorView => makeTensor(fusion, { shape: [-1, -1, -1, -1] });
  const channel = (): TensorView => makeTensor(fusion, { shape: [-1] });
  const bn0: BatchNormParams = { x: image(), weight: channel(), bias: channel(), mean: channel(), variance: channel() };
  const bn1: BatchNormParams = { x: image(), weight: channel(), bias: channel(), mean: channel(), variance: channel() };
  const alpha = fusion.newSymbolicScalar('Int');
  for (const p of [bn0, bn1]) for (const t of [p.x, p.weight, p.bias, p.mean, p.variance]) fusion.addInput(t);
  fusion.addInput(alpha);
  // The graph computes %14 (bn of %5) before %17 (bn of %0).
  const second = batchNormInference(fusion, bn1);
  const first = batchNormInference(fusion, bn0);
  const sum = ops.add(first, ops.mul(second, ops.cast(alpha, 'Double')));
  fusion.addOutput(ops.relu(sum));
  return fusion;
}

/** Lines without indentation and without blank lines (the seed page lost its whitespace). */
function trimmedLines(text: string): string[] {
  return text.split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
}

describe('issue #785 pow + sum (fusion_ir_presched)', () => {
  it('matches the seed dump exactly up to scalar numbering', () => {
    const ours = printFusion(issue785Fusion());
    const theirs = seed('issue785_fusion_ir_presched.txt');
    expect(canonicalNames(ours)).toBe(canonicalNames(theirs));
  });

  it('names tensors and IterDomains as nvFuser does; only input extents i3..i5 vs i4..i6 differ', () => {
    const ours = printFusion(issue785Fusion());
    const theirs = seed('issue785_fusion_ir_presched.txt');
    // nvFuser's frontend consumed one more scalar name (i3) before defining the second input.
    const shifted = ours.replace(/\bi([345])\b/g, (_, n: string) => `i${Number(n) + 1}`);
    expect(shifted).toBe(theirs);
    expectGolden(ours, 'fusion-ir/issue785_fusion_ir_presched.txt');
  });

  it('prints the TransformPrinter section for fusion_ir', () => {
    const text = printFusion(issue785Fusion(), { transforms: true });
    expect(text).toContain('TransformPrinter : \nT0_g[ iS0{i0}, iS1{i1}, iS2{i2} ]\n  logical domain: (iS0{i0}, iS1{i1}, iS2{i2})\n  contiguity: t t t\n');
    expect(text).toContain('  logical domain: (rS12{i0}, rS13{i1}, iS14{i2})\n  contiguity: n n t\n  loop domain: (rS12{i0}, rS13{i1}, iS14{i2})');
    expectGolden(text, 'fusion-ir/issue785_fusion_ir.txt');
  });
});

describe('seed exercise: parseJitIR of two batch norms + add(alpha) + relu', () => {
  it('has the structure of the seed dump: broadcast params, rsqrt(var + eps), mul by alpha, relu', () => {
    const exprs = seedExerciseFusion().exprs();
    const shape = exprs.map((e) => (e.kind === 'UnaryOp' || e.kind === 'BinaryOp' ? e.op : e.kind));
    const bn = ['BroadcastOp', 'sub', 'add', 'rsqrt', 'BroadcastOp', 'mul', 'BroadcastOp', 'mul', 'BroadcastOp', 'add'];
    expect(shape).toEqual([...bn, ...bn, 'cast', 'mul', 'add', 'relu']);
    const text = printKernelLegacy(seedExerciseFusion());
    expect(text).toMatch(/ {3}= rsqrtf\(T\d+_l\[ iS\d+\{i\d+\} \]\);/);
    expect(text).toMatch(/\n {3}\+ double\(9\.9999997473787516e-06\);/);
    expect(text).toMatch(/\nd\d+ = \(double\)\(i\d+\);\n/);
  });

  it('prints the seed dump line for line, up to numbering', () => {
    const ours = trimmedLines(printKernelLegacy(seedExerciseFusion())).join('\n');
    const theirs = trimmedLines(seed('exercise1_fusion_print.txt')).join('\n');
    expect(canonicalNames(ours)).toBe(canonicalNames(theirs));
  });

  it('keeps its goldens (legacy layout, fusion_ir with transforms, math only)', () => {
    const fusion = seedExerciseFusion();
    expectGolden(printKernelLegacy(fusion), 'fusion-ir/seed_exercise_kernel_legacy.txt');
    expectGolden(printFusion(fusion, { transforms: true }), 'fusion-ir/seed_exercise_fusion_ir.txt');
    const math = printMath(fusion);
    expect(math.startsWith('%kernel_math {\n')).toBe(true);
    expect(math.endsWith('\n}\n')).toBe(true);
    expect(math).toMatch(/\nd\d+ = \(double\)\(i\d+\);\n/);
    expect(printFusion(fusion)).toBe(`${printFusion(fusion).split('%kernel_math')[0] ?? ''}${math}`);
  });
});
