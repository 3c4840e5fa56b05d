// Every generated attention kernel variant compiled by nvcc -cubin for sm_90 (which runs ptxas
// on the inline PTX: cp.async, ldmatrix, mma.sync), with ptxas -v's register and spill counts
// per kernel: the tuned head dims (64, 128) must not spill in any variant; the general path
// (other E) must compile and, up to E 128, not spill either. Then every tiling of the GPU
// tuning list (FORWARD_TUNING / BACKWARD_TUNING, E 128, causal and not): compiles, at most 255
// registers, and spills no more than the bytes recorded for it below. The counts are printed.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
// The attention index only: these kernels need nothing else of codegen.
import {
  BACKWARD_TUNING,
  FORWARD_TUNING,
  generateAttentionBackward,
  generateAttentionBackwardConvert,
  generateAttentionBackwardPreprocess,
  generateAttentionForward,
  tilingTag,
  tuningTiling,
  type AttentionDtype,
  type AttentionKernel,
  type AttentionVariant,
} from '../src/attention/index.js';

const NVCC = process.env.NVCC ?? '/usr/local/bin/nvcc';
const hasNvcc = existsSync(NVCC);

const run = promisify(execFile);

interface PtxasCount {
  kernel: string;
  registers: number;
  spillBytes: number;
  stackBytes: number;
}

/** Per entry function: registers, spill stores + loads and stack frame from `ptxas -v`. */
export function parsePtxasVerbose(log: string): PtxasCount[] {
  const out: PtxasCount[] = [];
  const blocks = log.split(/ptxas info\s+: Compiling entry function '/).slice(1);
  for (const block of blocks) {
    const kernel = block.slice(0, block.indexOf("'"));
    const spills = /(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads/.exec(block);
    const registers = /Used (\d+) registers/.exec(block);
    if (spills === null || registers === null) throw new Error(`ptxas -v: no counts for ${kernel}`);
    out.push({ kernel, registers: Number(registers[1]), spillBytes: Number(spills[2]) + Number(spills[3]), stackBytes: Number(spills[1]) });
  }
  return out;
}

function variants(): AttentionVariant[] {
  const list: AttentionVariant[] = [];
  for (const dtype of ['BFloat16', 'Half'] as AttentionDtype[]) {
    for (const headDim of [64, 128]) {
      for (const causal of [false, true]) {
        list.push({ dtype, headDim, causal, bias: 'none', dropout: false });
      }
      list.push({ dtype, headDim, causal: true, bias: 'additive', biasDtype: dtype, dropout: true });
      list.push({ dtype, headDim, causal: false, bias: 'bool', dropout: false });
    }
  }
  for (const headDim of [8, 20, 80, 100, 256]) {
    list.push({ dtype: 'BFloat16', headDim, causal: headDim % 40 === 0, bias: 'none', dropout: false });
  }
  list.push({ dtype: 'BFloat16', headDim: 256, causal: true, bias: 'bool', dropout: true });
  list.push({ dtype: 'Half', headDim: 80, causal: false, bias: 'additive', biasDtype: 'Float', dropout: false });
  return list;
}

async function compile(variant: AttentionVariant, dir: string): Promise<PtxasCount[]> {
  return compileKernels([generateAttentionForward(variant), generateAttentionBackward(variant), generateAttentionBackwardPreprocess(variant), generateAttentionBackwardConvert(variant)], dir, kernelFileName(variant));
}

function kernelFileName(variant: AttentionVariant): string {
  return generateAttentionForward(variant).name;
}

async function compileKernels(kernels: readonly AttentionKernel[], dir: string, stem: string): Promise<PtxasCount[]> {
  const file = join(dir, `${stem}.cu`);
  writeFileSync(file, kernels.map((k) => k.source).join('\n'));
  try {
    // The wgmma forward needs sm_90a (kernel.arch); a file holds kernels of one arch.
    const arch = kernels[0]?.arch ?? 'sm_90';
    const { stderr } = await run(NVCC, ['-cubin', `-arch=${arch}`, '-std=c++17', '-Xptxas', '-v', file, '-o', `${file}.cubin`], { maxBuffer: 1 << 24 });
    // ptxas serializes wgmma (and says so) when it cannot prove the asynchronous register use safe.
    if (/wgmma[^\n]*serializ/i.test(stderr)) throw new Error(`ptxas serialized wgmma in ${file}:\n${stderr.slice(0, 4000)}`);
    return parsePtxasVerbose(stderr);
  } catch (error) {
    throw new Error(`nvcc failed on ${file}:\n${((error as { stderr?: string }).stderr ?? String(error)).slice(0, 4000)}`);
  }
}

describe.skipIf(!hasNvcc)('attention kernels through nvcc -cubin (sm_90)', () => {
  it('every variant compiles; no spills at E 64 / 128 (the tuned dims) nor anywhere up to E 128', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-attention-nvcc-'));
    const all = variants();
    const counts: { variant: AttentionVariant; count: PtxasCount }[] = [];
    // Two compilers at a time (the development machine has 2 cores).
    for (let i = 0; i < all.length; i += 2) {
      const pair = all.slice(i, i + 2);
      const results = await Promise.all(pair.map((v) => compile(v, dir)));
      results.forEach((r, j) => {
        for (const count of r) counts.push({ variant: pair[j] as AttentionVariant, count });
      });
    }
    console.log(counts.map(({ count: c }) => `${c.kernel.padEnd(64)} ${String(c.registers).padStart(3)} regs  ${String(c.spillBytes).padStart(5)} B spilled  ${c.stackBytes} B stack`).join('\n'));
    expect(counts.length).toBe(4 * all.length);
    for (const { variant, count } of counts) {
      expect(count.registers, count.kernel).toBeLessThanOrEqual(255);
      if (variant.headDim <= 128) expect(count.spillBytes, `${count.kernel} spills`).toBeLessThanOrEqual(DEFAULT_SPILLS[count.kernel] ?? 0);
    }
  }, 600_000);
});

/**
 * Spill bytes (stores + loads) measured for the tuning tilings that spill (2026-12-02, nvcc
 * 13.0): at the 255-register limit with two 16-row tiles a warp, or under the 128-register cap
 * of 16 warps an SM. Every other entry must not
 * spill; an entry spilling more than recorded here fails (a register regression).
 */
/** The E 128 forward defaults spill a little under their 2-CTA register cap and were still the
 * fastest tiling on the H200 (tuning row f14, 2026-12-02): the bytes ptxas reported then. */
const DEFAULT_SPILLS: Readonly<Record<string, number>> = {
  tsfuser_attention_fwd_bf16_e128: 100,
  tsfuser_attention_fwd_bf16_e128_causal: 8,
  tsfuser_attention_fwd_f16_e128: 100,
  tsfuser_attention_fwd_f16_e128_causal: 8,
};

const KNOWN_SPILLS: Readonly<Record<string, number>> = {
  'forward causal 8w 256x32 32r/w': 104,
  // The plain default's flags; causal is not its variant (causal runs 8w 128x64).
  'forward causal 8w 256x32 32r/w joint2-1sync fold': 164,
  'forward plain 8w 256x32 32r/w split1 msplit fold wskip heavy': 84,
  'forward plain 4w 128x64 32r/w 2cta split1 msplit fold wskip heavy': 100,
  'forward causal 4w 128x64 32r/w 2cta split1 msplit fold wskip heavy': 8,
  'forward plain 8w 256x32 32r/w split1 msplit fold wskip heavy lazy': 24,
  'forward causal 8w 256x32 32r/w split1 msplit fold wskip heavy lazy': 24,
  // Under the 128-register cap of 16 warps an SM.
  'forward plain 4w 64x32 4cta split1 msplit fold wskip heavy lazy': 20,
  'forward causal 4w 64x32 4cta split1 msplit fold wskip heavy lazy': 16,
  'forward plain 8w 128x32 2cta split1 msplit fold wskip heavy lazy': 8,
  'forward causal 8w 128x32 2cta split1 msplit fold wskip heavy lazy': 8,
  'forward causal 8w 128x32 2cta split1 fold heavy lazy': 8,
};

describe.skipIf(!hasNvcc)('the wgmma forward through nvcc -cubin (sm_90a)', () => {
  it('bf16 / fp16 x E 64 / 128 x causal x each wgmma tuning tiling: within 255 registers, no spill beyond WGMMA_SPILLS, wgmma not serialized', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-attention-wgmma-'));
    const jobs: { label: string; kernel: AttentionKernel }[] = [];
    for (const entry of FORWARD_TUNING.filter((e) => e[3].mma === 'wgmma')) {
      for (const dtype of ['BFloat16', 'Half'] as AttentionDtype[]) {
        for (const headDim of [64, 128]) {
          for (const causal of [false, true]) {
            const t = tuningTiling('forward', entry, headDim);
            const kernel = generateAttentionForward({ dtype, headDim, causal, bias: 'none', dropout: false }, t);
            expect(kernel.arch).toBe('sm_90a');
            jobs.push({ label: `${kernel.name} ${tilingTag(t)}`, kernel });
          }
        }
      }
    }
    expect(jobs.length).toBeGreaterThanOrEqual(8);
    const counts: { label: string; count: PtxasCount }[] = [];
    for (let i = 0; i < jobs.length; i += 2) {
      const pair = jobs.slice(i, i + 2);
      const results = await Promise.all(pair.map((j, k) => compileKernels([j.kernel], dir, `wgmma${i + k}`)));
      results.forEach((r, k) => {
        for (const count of r) counts.push({ label: pair[k]?.label ?? '?', count });
      });
    }
    console.log(counts.map(({ label, count: c }) => `${label.padEnd(80)} ${String(c.registers).padStart(3)} regs  ${String(c.spillBytes).padStart(5)} B spilled`).join('\n'));
    expect(counts.length).toBe(jobs.length);
    for (const { label, count } of counts) {
      expect(count.registers, label).toBeLessThanOrEqual(255);
      expect(count.spillBytes, `${label} spills`).toBeLessThanOrEqual(WGMMA_SPILLS[label.slice(label.indexOf(' ') + 1)] ?? 0);
    }
  }, 600_000);
});

/** The warp-specialized tilings at E 128 spill (ptxas -v, nvcc 13.0, 2026-12-04): their producer
 * warpgroup gets what the block's launch allocation (384 x 168) leaves beside consumers at 232 /
 * 216 — 40 registers at 128 keys, 72 at 64 (wsRegisterSplit; the 48 / 80 of before spilled 40 B /
 * none but asked for more registers than the block has: the consumers' setmaxnreg.inc never
 * returned on the H200). Every other wgmma kernel spills nothing. */
const WGMMA_SPILLS: Readonly<Record<string, number>> = {
  '8w 128x128 msplit fold wskip heavy wgmma overlap ws': 216,
  '8w 128x64 msplit fold wskip heavy wgmma overlap ws': 16,
};

describe.skipIf(!hasNvcc)('the GPU tuning tilings through nvcc -cubin (sm_90, E 128)', () => {
  it('every entry compiles within 255 registers and spills no more than recorded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-attention-tuning-'));
    const jobs: { label: string; kernel: AttentionKernel }[] = [];
    for (const [pass, list] of [['forward', FORWARD_TUNING], ['backward', BACKWARD_TUNING]] as const) {
      for (const entry of list) {
        for (const causal of [false, true]) {
          const variant: AttentionVariant = { dtype: 'BFloat16', headDim: 128, causal, bias: 'none', dropout: false };
          const t = tuningTiling(pass, entry);
          const kernel = pass === 'forward' ? generateAttentionForward(variant, t) : generateAttentionBackward(variant, t);
          jobs.push({ label: `${pass} ${causal ? 'causal' : 'plain'} ${tilingTag(t)}`, kernel });
        }
      }
    }
    const counts: { label: string; count: PtxasCount }[] = [];
    for (let i = 0; i < jobs.length; i += 2) {
      const pair = jobs.slice(i, i + 2);
      const results = await Promise.all(pair.map((j, k) => compileKernels([j.kernel], dir, `tuning${i + k}`)));
      results.forEach((r, k) => {
        for (const count of r) counts.push({ label: pair[k]?.label ?? '?', count });
      });
    }
    console.log(counts.map(({ label, count: c }) => `${label.padEnd(72)} ${String(c.registers).padStart(3)} regs  ${String(c.spillBytes).padStart(5)} B spilled`).join('\n'));
    expect(counts.length).toBe(jobs.length);
    for (const { label, count } of counts) {
      expect(count.registers, label).toBeLessThanOrEqual(255);
      // A wgmma tiling's record is WGMMA_SPILLS' (one record per tiling, plain or causal).
      const tag = label.split(' ').slice(2).join(' ');
      expect(count.spillBytes, `${label} spills`).toBeLessThanOrEqual(KNOWN_SPILLS[label] ?? WGMMA_SPILLS[tag] ?? 0);
    }
  }, 600_000);
});
