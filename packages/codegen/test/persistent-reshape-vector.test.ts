// Inner persistent kernels whose output is written through a reshape of the row (the attention
// prologue's reshape back to [B, S, H]; scheduler loops-past-views.ts): each vector fixture
// (test-support persistent-reshape-vector-fixtures.ts) and 12 random prologues (seed printed)
// are simulated against the reference evaluator (norm-wise: the kernel sums in its own order),
// and the output is stored with the row's vector — `loadLocalToGlobal<T, vec>` of the reshaped
// output, its index free of division — whenever the heuristics pick a vector, as the same
// normalization without the reshapes is; reshapes that add size-1 dims included (HuggingFace
// attention backward's [1, H, S_q, S_k], whose kernel and params at the sweep's bf16
// [1024, 16, 4096] are golden dumps).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { huggingfaceAttnBackwardGlue, reshapeLayerNormPrologue, vectorReshapeFixtures } from '@tsfuser/test-support';
import { checkGolden, type DataType } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo, type InnerPersistentParams } from '@tsfuser/scheduler';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { baseSeed, seeded, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();

/** The statements storing the kernel's last tensor parameter (the fusion's only output). */
function outputStores(k: CompiledKernel): string[] {
  const params = [...k.source.matchAll(/Tensor<[^>]*> (T\d+)/g)].map((m) => m[1] as string);
  const out = params[params.length - 1] as string;
  return k.source.split('\n').filter((l) => l.includes(`${out}[`) && !l.includes('__global__'));
}

/** Checks that the single output of `k` is stored `vec` elements at a time, with no division in its index. */
function expectStoreWidth(k: CompiledKernel, vec: number, label: string, indexDivides = false): void {
  const params = k.params as InnerPersistentParams;
  const stores = outputStores(k);
  expect(stores.length, label).toBeGreaterThan(0);
  if (vec > 1) {
    expect(params.unrollFactorInnerReduction, label).toBe(vec);
    expect(params.vectorizedOutputs, label).toEqual([0]);
    for (const s of stores) expect(s, label).toMatch(new RegExp(`loadLocalToGlobal<\\w+, ${vec}>`));
  } else {
    for (const s of stores) expect(s, label).not.toContain('loadLocalToGlobal');
  }
  if (!indexDivides) for (const s of stores) expect(s.replace(/.*?(T\d+\[.*)/, '$1'), label).not.toMatch(/[/%]/);
}

describe('outputs written through a reshape of the row are vectorized', () => {
  for (const [k, fx] of vectorReshapeFixtures().entries()) {
    it(fx.name, () => {
      const label = `${fx.name} (TSFUSER_SEED=${seed})`;
      const inputs = fx.inputs(seeded(seed + k));
      const segments = segmentsWithInputs(fx.fusion, inputs);
      expect(segments.map((s) => s.type).join('+'), label).toBe(fx.segments);
      for (const s of segments) {
        const { compiled } = simulateAndCheck(s.fusion, s.inputs, label);
        expectStoreWidth(compiled, fx.storeVector, label, fx.storeIndexDivides === true);
        if (fx.rowsPerBlock !== undefined) expect(compiled.params.lparams.bdimy, label).toBe(fx.rowsPerBlock);
      }
    });
  }

  it('12 random attention prologues (odd rows, hidden sizes the vector may not divide)', () => {
    const r = seeded(seed + 500);
    const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
    const dtypes: DataType[] = ['Float', 'Half', 'BFloat16'];
    for (let i = 0; i < 12; i += 1) {
      const dtype = dtypes[int(0, 2)] as DataType;
      const h = int(0, 1) === 0 ? 8 * int(1, 40) : int(9, 200);
      const [b, s] = [int(1, 4), int(1, 9)];
      const fx = reshapeLayerNormPrologue(dtype, b, s, h);
      const label = `random prologue ${i} ${dtype} [${b}, ${s}, ${h}] (TSFUSER_SEED=${seed})`;
      const inputs = fx.inputs(seeded(seed + 600 + i));
      for (const seg of segmentsWithInputs(fx.fusion, inputs)) {
        const { compiled } = simulateAndCheck(seg.fusion, seg.inputs, label);
        const params = compiled.params as InnerPersistentParams;
        const vec = params.vectorizeInnerReduction ? params.unrollFactorInnerReduction : 1;
        // The un-reshaped input and the reshaped-back output take the same vector.
        expect(params.vectorizedInputs.includes(0), label).toBe(vec > 1);
        expectStoreWidth(compiled, vec, label);
      }
    }
  });
});

describe('HuggingFace attention backward golden dumps (reshape back to [1, H, S_q, S_k])', () => {
  const dir = fileURLToPath(new URL('../../../test-fixtures/golden/codegen/normalization/', import.meta.url));
  const update = process.env.UPDATE_GOLDEN === '1';
  it('bf16 [1024, 16, 4096]: cuda_kernel and scheduler_params', () => {
    const fusion = huggingfaceAttnBackwardGlue('BFloat16', 1024, 16, 4096);
    const sizes = [1024, 16, 4096];
    const k = compileFusion(fusion, makeRuntimeInfo(fusion, [sizes, sizes, sizes].map((sz) => ({ sizes: sz }))));
    expect((k.params as InnerPersistentParams).vectorizedOutputs).toEqual([0]);
    expect(checkGolden(k.dumps.cuda, `${dir}huggingface_attn_bwd_bf16_1024x16x4096.cuda_kernel.txt`, update).diff).toBe('');
    expect(checkGolden(k.dumps.schedulerParams + k.dumps.launchParams, `${dir}huggingface_attn_bwd_bf16_1024x16x4096.scheduler_params.txt`, update).diff).toBe('');
  });
});
