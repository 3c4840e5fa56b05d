// nvcc -ptx -arch=sm_90 of the attention prologue (reshape [B, S, H] → [B·S, H] + layer_norm with
// weight and bias + reshape back; test-support reshapeLayerNormPrologue) at the bench shape
// [8, 4096, 4096] in bf16 and at [2, 128, 4096] in f32, next to the same layer_norm on the
// un-reshaped [B·S, H] rows: the PTX writes the output with the same 16-byte vector stores
// (st.global.v4) as the un-reshaped kernel and no scalar global store, reads with 16-byte vector
// loads (ld.global.v4; in bf16 exactly as many as the un-reshaped kernel — in f32 the un-reshaped
// kernel copies its rows with cp.async.bulk instead, which the reshaped input does not take), and
// has no integer division or remainder (the reshapes are indexed through the row's own index,
// not per element). HuggingFace attention backward's glue at the sweep's [1024, 16, 4096], whose
// reshape back to [1, H, S_q, S_k] adds a size-1 broadcast dim, stores as the same glue without
// the reshape does (st.global.v4, no scalar global store, no division).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Fusion, layerNorm, makeTensor, type DataType } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { huggingfaceAttnBackwardGlue, reshapeLayerNormPrologue } from '@tsfuser/test-support';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { hasNvcc, NVCC } from './nvcc-batch.js';

function ptxOf(k: CompiledKernel, label: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tsfuser-prologue-ptx-'));
  const file = join(dir, `${label}.cu`);
  writeFileSync(file, k.source);
  execFileSync(NVCC, ['-ptx', '-arch=sm_90', '-std=c++17', file, '-o', `${file}.ptx`], { stdio: 'pipe' });
  return readFileSync(`${file}.ptx`, 'utf8');
}

/** Global load / store instructions of the PTX by width suffix, e.g. { 'ld.global.v4': 6 }. */
function globalAccesses(ptx: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const m of ptx.matchAll(/\b((?:ld|st)\.global(?:\.[a-z]+)*?(?:\.v[248])?)\.[a-z]\d+\b/g)) {
    const key = (m[1] as string).replace(/\.(nc|ca|cg|cs|lu|cv|wb|wt|L1::\w+|L2::\w+)/g, '');
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

function unreshapedLayerNorm(dtype: DataType): Fusion {
  const fusion = new Fusion();
  const [x, w, b] = [2, 1, 1].map((rank) => {
    const t = makeTensor(fusion, { shape: new Array<number>(rank).fill(-1), dtype });
    fusion.addInput(t);
    return t;
  }) as [ReturnType<typeof makeTensor>, ReturnType<typeof makeTensor>, ReturnType<typeof makeTensor>];
  fusion.addOutput(layerNorm(x, 1, w, b, 1e-5).output);
  return fusion;
}

describe.skipIf(!hasNvcc)('the attention prologue compiles to vector loads and stores (nvcc -ptx sm_90)', () => {
  for (const [dtype, b, s, h] of [['BFloat16', 8, 4096, 4096], ['Float', 2, 128, 4096]] as const) {
    it(`${dtype} [${b}, ${s}, ${h}]: the same ld/st.global.v4 as the un-reshaped layer_norm, no division`, () => {
      const fx = reshapeLayerNormPrologue(dtype, b, s, h);
      const reshaped = compileFusion(fx.fusion, makeRuntimeInfo(fx.fusion, [[b, s, h], [h], [h]].map((sz) => ({ sizes: sz }))));
      const rows = unreshapedLayerNorm(dtype);
      const plain = compileFusion(rows, makeRuntimeInfo(rows, [[b * s, h], [h], [h]].map((sz) => ({ sizes: sz }))));
      const got = globalAccesses(ptxOf(reshaped, 'reshaped'));
      const want = globalAccesses(ptxOf(plain, 'plain'));
      expect(got['ld.global.v4'] ?? 0).toBeGreaterThan(0);
      expect(got['st.global.v4'] ?? 0).toBeGreaterThan(0);
      expect(got['st.global.v4']).toBe(want['st.global.v4']);
      if (dtype === 'BFloat16') expect(got['ld.global.v4']).toBe(want['ld.global.v4']);
      expect(Object.keys(got).filter((k) => k.startsWith('st.global') && k !== 'st.global.v4')).toEqual([]);
      expect(ptxOf(reshaped, 'reshaped-div')).not.toMatch(/\b(div|rem)\.(s|u)(32|64)\b/);
    }, 120_000);
  }
});

describe.skipIf(!hasNvcc)('HuggingFace attention backward reshaped to [1, H, S_q, S_k] stores with the row vector (nvcc -ptx sm_90)', () => {
  for (const dtype of ['BFloat16', 'Float'] as const) {
    it(`${dtype} [1024, 16, 4096]: the same st.global.v4 as without the reshape, no scalar store, no division`, () => {
      const sizes = [1024, 16, 4096];
      const info = (f: Fusion): ReturnType<typeof makeRuntimeInfo> => makeRuntimeInfo(f, [sizes, sizes, sizes].map((sz) => ({ sizes: sz })));
      const glue = huggingfaceAttnBackwardGlue(dtype, 1024, 16, 4096);
      const plainGlue = huggingfaceAttnBackwardGlue(dtype, 1024, 16, 4096, false);
      const reshaped = compileFusion(glue, info(glue));
      const plain = compileFusion(plainGlue, info(plainGlue));
      const got = globalAccesses(ptxOf(reshaped, 'hf-reshaped'));
      const want = globalAccesses(ptxOf(plain, 'hf-plain'));
      expect(got['st.global.v4'] ?? 0).toBeGreaterThan(0);
      expect(got).toEqual(want);
      expect(Object.keys(got).filter((k) => k.startsWith('st.global') && k !== 'st.global.v4')).toEqual([]);
      expect(ptxOf(reshaped, 'hf-reshaped-div')).not.toMatch(/\b(div|rem)\.(s|u)(32|64)\b/);
    }, 120_000);
  }
});
