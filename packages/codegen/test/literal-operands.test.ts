// Constant scalars of dtype Float / Half / BFloat16 in kernels (nvFuser's test_nextafter and
// test_issue4444 failed NVRTC on the H200): a floating literal is C text of type double, so its
// operand is typed Double and converted to the op's compute type like any double. Before,
// `nextafter(x, Float 1.0)` emitted `nvf_nextafter(float, double)` (ambiguous overload) and a
// BFloat16 pad value reaching a where() emitted `__bfloat2float(0.0e+0)` (no conversion).
// Also the recomputed copies of a segment output read in several index spaces (test_issue3292:
// `identifier "T23" is undefined`): the copies are registers, not unallocated global tensors.
// An integral JS constant outside int64 (1e308, embedding_fwd's test for a run-time norm_type of
// +-inf) is a Double literal, not `1e+308LL` (test_embedding's max_norm cases failed NVRTC).
// Checked by the emitted text, by the CPU kernel simulator against the reference evaluator
// (the recompute case) and, where nvcc is installed, by nvcc -cubin -arch=sm_90.
import { describe, expect, it } from 'vitest';
import {
  atan2, cast, cat, copysign, Fusion, fmod, gt, hypot, lt, makeTensor, mul, neg, nextafter, pad, pow, slice, where, type TensorView,
} from '@tsfuser/fusion-ir';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { baseSeed, randomTensor, seeded, simulateAndCheck } from './shape-ops-simulation.js';

/** Float x against a Float-dtype constant, in both operand orders, for every overloaded binary helper. */
function floatScalarFusion(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1], dtype: 'Float' });
  f.addInput(x);
  const one = f.constant(1.0, 'Float');
  const half = f.constant(0.5, 'Float');
  for (const op of [nextafter, pow, atan2, fmod, hypot, copysign]) {
    f.addOutput(op(x, one) as TensorView);
    f.addOutput(op(half, x) as TensorView);
  }
  return f;
}

/** BFloat16 / Half constants as a where() branch and a product. */
function reducedScalarFusion(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' });
  f.addInput(x);
  const h = cast(x, 'Half');
  const zero = f.constant(0, 'BFloat16');
  f.addOutput(where(gt(x, zero), x, zero) as TensorView);
  f.addOutput(mul(h, f.constant(3, 'Half')) as TensorView);
  return f;
}

/** A BFloat16 pad value (test_issue4444 pads bf16 tensors with a Double 0 cast to BFloat16). */
function reducedPadFusion(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' });
  f.addInput(x);
  f.addOutput(pad(x, [2, 3], f.constant(0.25, 'BFloat16')));
  return f;
}

/** y = -x is an output and is read by two slices (rotate half) and directly: recomputed per index space. */
function recomputedOutputFusion(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [40, 64], dtype: 'Float' });
  f.addInput(x);
  const y = neg(x) as TensorView;
  f.addOutput(y);
  const lo = slice(y, [0, 0], [40, 32]);
  const hi = slice(y, [0, 32], [40, 64]);
  f.addOutput(mul(y, cat([neg(hi) as TensorView, lo], 1)) as TensorView);
  return f;
}

/** where() on a run-time Double p compared with +-1e308, as embedding_fwd's norm selection does. */
function hugeIntegralConstantFusion(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
  const p = f.newSymbolicScalar('Double');
  f.addInput(x);
  f.addInput(p);
  f.addOutput(where(gt(p, 1e308), x, where(lt(p, -1e308), neg(x), mul(x, 2))) as TensorView);
  return f;
}

function kernelOf(f: Fusion, sizes: number[][], fusionId: number): CompiledKernel {
  return compileFusion(f, makeRuntimeInfo(f, sizes.map((s) => ({ sizes: s }))), { fusionId });
}

function hugeConstantKernel(fusionId: number): CompiledKernel {
  const f = hugeIntegralConstantFusion();
  return compileFusion(f, makeRuntimeInfo(f, [{ sizes: [64, 33] }, null]), { fusionId });
}

/** Names the kernel indexes as `T<n>[` that are neither parameters nor declared locals. */
function undeclaredTensors(cuda: string): string[] {
  const used = new Set([...cuda.matchAll(/\b(T\d+)\[/g)].map((m) => m[1] as string));
  const signature = cuda.slice(0, cuda.indexOf('{'));
  const declared = new Set([...signature.matchAll(/\b(T\d+)\b/g), ...cuda.matchAll(/(?:Array<[^>]+>|__shared__[^;]*?)\s+(T\d+)\b/g)].map((m) => m[1] as string));
  return [...used].filter((t) => !declared.has(t));
}

describe('constant scalars as kernel operands', () => {
  it('a Float constant is converted to float before an overloaded helper (nextafter, pow, atan2, fmod, hypot, copysign)', () => {
    const cuda = kernelOf(floatScalarFusion(), [[1000]], 41000).dumps.cuda;
    for (const op of ['nextafter', 'atan2', 'fmod', 'hypot', 'copysign']) {
      expect(cuda, op).toMatch(new RegExp(`nvf_${op}\\(T\\d+\\[0\\], static_cast<float>\\(1\\.0+e\\+0\\)\\)`));
      expect(cuda, op).toMatch(new RegExp(`nvf_${op}\\(static_cast<float>\\(5\\.0+e-1\\), T\\d+\\[0\\]\\)`));
    }
    // pow by a constant 1 is not a product: the call, with a float exponent.
    expect(cuda).toMatch(/nvf_pow\(T\d+\[0\], static_cast<float>\(1\.0+e\+0\)\)/);
  });

  it('a BFloat16 / Half constant is never decoded as a __bfloat / __half', () => {
    const cuda = kernelOf(reducedScalarFusion(), [[64, 33]], 41001).dumps.cuda;
    const padded = kernelOf(reducedPadFusion(), [[64, 33]], 41003).dumps.cuda;
    for (const text of [cuda, padded]) expect(text).not.toMatch(/__(bfloat|half)2float\(\(?-?[0-9]/);
    expect(cuda).toMatch(/static_cast<float>\(3\.0+e\+0\)/);
    expect(padded).toMatch(/static_cast<float>\(2\.50+e-1\)/);
  });

  it('copies of a segment output recomputed for other index spaces are registers, and simulate like the fusion', () => {
    const f = recomputedOutputFusion();
    const cuda = kernelOf(f, [[40, 64]], 41002).dumps.cuda;
    expect(undeclaredTensors(cuda)).toEqual([]);
    const seed = baseSeed();
    const rng = seeded(seed);
    simulateAndCheck(f, [randomTensor('Float', [40, 64], rng)], `recomputed output (TSFUSER_SEED=${seed})`);
  });

  it('an integral constant outside int64 is a double literal', () => {
    const cuda = hugeConstantKernel(41004).dumps.cuda;
    expect(cuda).not.toMatch(/e\+308LL/);
    expect(cuda).toMatch(/1\.0+e\+308/);
  });

  it.skipIf(!hasNvcc)('the five kernels compile with nvcc -cubin -arch=sm_90', async () => {
    const kernels = [
      kernelOf(floatScalarFusion(), [[1000]], 41010),
      kernelOf(reducedScalarFusion(), [[64, 33]], 41011),
      kernelOf(reducedPadFusion(), [[64, 33]], 41013),
      kernelOf(recomputedOutputFusion(), [[40, 64]], 41012),
      hugeConstantKernel(41014),
    ];
    // Five of one index type: the fast tier's nvcc sample (NVCC_FAST_SAMPLE) compiles them all.
    expect(kernels.map((k) => k.indexType)).toEqual(['Int32', 'Int32', 'Int32', 'Int32', 'Int32']);
    await compileKernelsWithNvcc(kernels, { chunks: 1, label: 'literals', cubin: true });
  }, 120_000);
});
