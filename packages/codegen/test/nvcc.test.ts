// Compiles the generated kernels of every fixture with nvcc (-ptx, sm_90), batched: many
// kernels (distinct names) per .cu file, files compiled in parallel.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { add, Fusion, makeTensor, mul, sub, maximum, where, gt, type TensorView } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { compileFusion, emitKernel, type CompiledKernel } from '../src/index.js';
import { allFixtures, tierCount } from '@tsfuser/test-support';
import { NVCC, compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';

if (!hasNvcc) console.log(`nvcc tests skipped: ${NVCC} not found (set NVCC to its path)`);

/** Many kernels per translation unit per index type; units compiled in parallel. */
function compileBatch(kernels: CompiledKernel[], chunks = 4): Promise<void> {
  return compileKernelsWithNvcc(kernels, { chunks });
}

describe.skipIf(!hasNvcc)('generated CUDA compiles with nvcc', () => {
  it('fixtures: broadcasts, batch norm, every op kind, every dtype and cast, odd/zero/one sizes', async () => {
    const kernels = allFixtures().map((f, i) => compileFusion(f.fusion, f.info, { fusionId: i }));
    expect(kernels.length).toBeGreaterThan(300);
    expect(new Set(kernels.map((k) => k.kernelName)).size).toBe(kernels.length);
    await compileBatch(kernels);
  });

  it('random pointwise fusions (fast-check)', async () => {
    const kernels: CompiledKernel[] = [];
    let id = 10000;
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 8 }),
        (sizes, bcast, ops) => {
          const fusion = new Fusion();
          const a = makeTensor(fusion, { shape: sizes.map(() => -1) });
          const b = makeTensor(fusion, { shape: sizes.map((_, d) => (bcast[d] === true ? 1 : -1)) });
          fusion.addInput(a);
          fusion.addInput(b);
          let t: TensorView = a;
          for (const o of ops) {
            const ops5: (() => TensorView)[] = [() => add(t, b), () => mul(t, 2.5), () => sub(b, t), () => maximum(t, b), () => where(gt(t, b), t, b) as TensorView];
            t = (ops5[o] as () => TensorView)();
          }
          fusion.addOutput(t);
          const info = makeRuntimeInfo(fusion, [{ sizes }, { sizes: sizes.map((s, d) => (bcast[d] === true ? 1 : s)) }]);
          let k: CompiledKernel;
          try {
            k = compileFusion(fusion, info, { fusionId: id++ });
          } catch (e) {
            console.log(JSON.stringify({ sizes, bcast, ops }), (e as Error).stack);
            throw e;
          }
          expect(k.dumps.cuda).toContain(k.kernelName);
          kernels.push(k);
        },
      ),
      { numRuns: tierCount(60, 10), reporter: (r) => { if (r.failed) throw new Error(`counterexample ${JSON.stringify(r.counterexample)}: ${String(r.errorInstance instanceof Error ? r.errorInstance.stack : r.errorInstance)}`); } },
    );
    await compileBatch(kernels, 2).catch((e: Error) => { console.log(e.message); throw e; });
  });

  it('a kernel with 64-bit indexing compiles', async () => {
    const fusion = new Fusion();
    const a = makeTensor(fusion, { shape: [-1, -1] });
    fusion.addInput(a);
    fusion.addOutput(mul(a, 2));
    const k = compileFusion(fusion, makeRuntimeInfo(fusion, [{ sizes: [70000, 40000] }]), { fusionId: 99999 });
    expect(k.indexType).toBe('Int');
    expect(emitKernel).toBeDefined();
    await compileBatch([k], 1);
  });
});
