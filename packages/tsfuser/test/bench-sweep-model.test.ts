// The sweep families of nvFuser's model-shaped benchmarks (issue 38): group_norm backward,
// rotate-half RoPE on [1, H, S, 128] and its backward, a two-way last-dim cat, and the softmax /
// dropout / mask glue of nanoGPT and HuggingFace attention forward and backward on [1, rows / 16,
// 16, hidden] scores — and the reduction_axis = 0 forms of the sum, softmax and its backward —
// compute, on the reference backend at small sizes, what independent float64 math says
// (written out here; the forward keep masks redrawn by a separate one-op rand_like definition
// with the same seed and offset). Also their byte counts, the points they take, their input
// dtypes, and that the GPU path on the fake H100 segments, lowers and launches each.
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import { sweepDefinition, sweepInputs } from '../src/bench/sweep-definitions.js';
import { SWEEP_DROPOUT_OFFSET, SWEEP_DROPOUT_P, SWEEP_DROPOUT_SEED } from '../src/bench/sweep-dropout-definitions.js';
import { NVF_MODEL_SWEEP_FAMILIES, NVF_OUTER_SWEEP_FAMILIES, pointBytes, pointName, sweepPoints, type SweepPoint } from '../src/bench/sweep-points.js';
import { importPythonDefinition } from '../src/python/import-definition.js';
import { Random } from '../src/io/random.js';
import type { ExecuteInput } from '../src/execute/backend.js';
import type { WorkloadInput } from '../src/bench/workloads.js';
import { createGpuBackend } from '../src/execute/gpu-backend.js';
import { fakeDevice } from './fake-device.js';
import { runCli } from './helpers.js';

const FAMILIES = [...NVF_MODEL_SWEEP_FAMILIES, ...NVF_OUTER_SWEEP_FAMILIES] as const;
type Family = (typeof FAMILIES)[number];

const seed = Number(process.env['SWEEP_TEST_SEED'] ?? Date.now() % 100000);
const keepScale = 1 / (1 - SWEEP_DROPOUT_P);

/** The point each family is checked at (small; the view sizes in the comments). */
const CHECK_POINT: Record<Family, readonly [number, number]> = {
  group_norm_bwd: [128, 37], // [2, 32, 2, 37]
  rope: [5, 256], // [1, 2, 5, 128], cos / sin [5, 128]
  rope_bwd: [5, 256],
  cat: [5, 37], // [5, 18] ++ [5, 19]
  nanogpt_attn: [32, 37], // [1, 2, 16, 37]
  nanogpt_attn_bwd: [32, 37],
  huggingface_attn: [32, 37],
  huggingface_attn_bwd: [32, 37], // [2, 16, 37]
  col_sum: [5, 37],
  softmax_outer: [5, 37],
  softmax_bwd_outer: [5, 37],
};

function randomHost(spec: WorkloadInput, rng: Random): HostTensor {
  if (spec.values !== undefined) return spec.values();
  const n = spec.sizes.reduce((a, b) => a * b, 1);
  if (spec.dtype === 'Bool') return HostTensor.fromValues('Bool', spec.sizes, Array.from({ length: n }, () => rng.uniform() < 1 - SWEEP_DROPOUT_P));
  return HostTensor.fromValues('Float', spec.sizes, Array.from({ length: n }, () => (spec.positive === true ? 0.5 + rng.uniform() : rng.normal())));
}

/** rand_like(x) < 1 − p for the sweep's seed and offset, x of `sizes`: the forward's keep mask. */
async function keepMask(sizes: number[]): Promise<Float64Array> {
  const rank = sizes.length;
  const text = `def rand(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[${Array(rank).fill('-1').join(', ')}], contiguity=[${Array(rank).fill('True').join(', ')}], dtype=DataType.Float, is_cpu=False)
    S1 = fd.define_scalar(None, dtype=DataType.Int)
    S2 = fd.define_scalar(None, dtype=DataType.Int)
    fd.add_output(fd.ops.rand_like(T0, rng_seed=S1, rng_offset=S2))
`;
  const zeros = HostTensor.fromValues('Float', sizes, new Array<number>(sizes.reduce((a, b) => a * b, 1)).fill(0));
  const [u] = await importPythonDefinition(text).execute([Tensor.fromHost(zeros), SWEEP_DROPOUT_SEED, SWEEP_DROPOUT_OFFSET], { backend: 'reference' });
  return Float64Array.from((u as Tensor).toHost().toFloat64Array(), (v) => (v < 1 - SWEEP_DROPOUT_P ? 1 : 0));
}

/** Softmax of each row of `width` in a flat array (−Infinity entries give 0). */
function softmaxRows(z: readonly number[], width: number): number[] {
  const out: number[] = [];
  for (let r = 0; r < z.length / width; r += 1) {
    const row = z.slice(r * width, (r + 1) * width);
    const m = Math.max(...row);
    const e = row.map((v) => Math.exp(v - m));
    const s = e.reduce((a, b) => a + b, 0);
    out.push(...e.map((v) => v / s));
  }
  return out;
}

/** attn · (d − Σ_row attn · d), d = dy · keep / (1 − p), row width `width`. */
function softmaxDropoutGrad(dy: Float64Array, attn: Float64Array, keep: Float64Array, width: number): number[] {
  const d = Array.from(dy, (v, i) => v * (keep[i] as number) * keepScale);
  return d.map((v, i) => {
    const r = Math.floor(i / width) * width;
    let dot = 0;
    for (let k = r; k < r + width; k += 1) dot += (attn[k] as number) * (d[k] as number);
    return (attn[i] as number) * (v - dot);
  });
}

/** Float64 outputs of a family at (rows, hidden) from its inputs (flat), `keep` the forward's keep mask. */
function expected(family: Family, rows: number, hidden: number, ins: Float64Array[], keep: Float64Array): number[][] {
  const t = (i: number): Float64Array => ins[i] as Float64Array;
  switch (family) {
    case 'group_norm_bwd': {
      // x, dy [N, 32, 2, S]; w [32, 2]; mean, invstd [N, 32]. Group q = n·32 + g holds 2·S contiguous values.
      const [x, dy, w, mean, invstd] = [t(0), t(1), t(2), t(3), t(4)];
      const per = 2 * hidden;
      const channel = (i: number): number => Math.floor(i / hidden) % 64;
      const xhat = (i: number): number => ((x[i] as number) - (mean[Math.floor(i / per)] as number)) * (invstd[Math.floor(i / per)] as number);
      const g = (i: number): number => (dy[i] as number) * (w[channel(i)] as number);
      const groups = x.length / per;
      const meanG = Array.from({ length: groups }, (_, q) => Array.from({ length: per }, (_, k) => g(q * per + k)).reduce((a, b) => a + b, 0) / per);
      const meanGX = Array.from({ length: groups }, (_, q) => Array.from({ length: per }, (_, k) => g(q * per + k) * xhat(q * per + k)).reduce((a, b) => a + b, 0) / per);
      const dx = Array.from(x, (_, i) => (invstd[Math.floor(i / per)] as number) * (g(i) - (meanG[Math.floor(i / per)] as number) - xhat(i) * (meanGX[Math.floor(i / per)] as number)));
      const dw = new Array<number>(64).fill(0);
      const db = new Array<number>(64).fill(0);
      x.forEach((_, i) => {
        dw[channel(i)] = (dw[channel(i)] as number) + (dy[i] as number) * xhat(i);
        db[channel(i)] = (db[channel(i)] as number) + (dy[i] as number);
      });
      return [dx, dw, db];
    }
    case 'rope': {
      // x [1, H, S, 128]; cos, sin [S, 128].
      const [x, cos, sin] = [t(0), t(1), t(2)];
      return [
        Array.from(x, (v, i) => {
          const d = i % 128;
          const s = Math.floor(i / 128) % rows;
          const rotated = d < 64 ? -(x[i + 64] as number) : (x[i - 64] as number);
          return v * (cos[s * 128 + d] as number) + rotated * (sin[s * 128 + d] as number);
        }),
      ];
    }
    case 'rope_bwd': {
      // grad_out [1, H, S, 128]; cos, sin [S, 128]: dy · cos + cat(v[…, 64:], −v[…, :64]), v = dy · sin.
      const [dy, cos, sin] = [t(0), t(1), t(2)];
      const v = (i: number): number => (dy[i] as number) * (sin[(Math.floor(i / 128) % rows) * 128 + (i % 128)] as number);
      return [Array.from(dy, (g, i) => g * (cos[(Math.floor(i / 128) % rows) * 128 + (i % 128)] as number) + (i % 128 < 64 ? v(i + 64) : -v(i - 64)))];
    }
    case 'col_sum':
      return [Array.from({ length: hidden }, (_, c) => Array.from({ length: rows }, (_, r) => t(0)[r * hidden + c] as number).reduce((a, b) => a + b, 0))];
    case 'softmax_outer': {
      // softmaxRows of the transpose, transposed back.
      const xt = Array.from({ length: rows * hidden }, (_, i) => t(0)[(i % rows) * hidden + Math.floor(i / rows)] as number);
      const yt = softmaxRows(xt, rows);
      return [Array.from({ length: rows * hidden }, (_, i) => yt[(i % hidden) * rows + Math.floor(i / hidden)] as number)];
    }
    case 'softmax_bwd_outer': {
      const [dy, y] = [t(0), t(1)];
      const dot = Array.from({ length: hidden }, (_, c) => Array.from({ length: rows }, (_, r) => (dy[r * hidden + c] as number) * (y[r * hidden + c] as number)).reduce((a, b) => a + b, 0));
      return [Array.from(dy, (g, i) => (y[i] as number) * (g - (dot[i % hidden] as number)))];
    }
    case 'cat': {
      const left = Math.floor(hidden / 2);
      return [Array.from({ length: rows * hidden }, (_, i) => {
        const [r, c] = [Math.floor(i / hidden), i % hidden];
        return c < left ? (t(0)[r * left + c] as number) : (t(1)[r * (hidden - left) + c - left] as number);
      })];
    }
    case 'nanogpt_attn': {
      // scores [1, H, 16, S_k], bias [1, 1, 16, S_k] (0 = masked).
      const [x, bias] = [t(0), t(1)];
      const masked = Array.from(x, (_, i) => (bias[i % (16 * hidden)] as number) === 0);
      const attn = softmaxRows(Array.from(x, (v, i) => (masked[i] === true ? -Infinity : v / 8)), hidden);
      return [attn.map((a, i) => a * (keep[i] as number) * keepScale), Array.from(keep), attn, masked.map(Number)];
    }
    case 'nanogpt_attn_bwd': {
      // grad_out, attn, keep [1, H, 16, S_k]; masked [1, 1, 16, S_k].
      const g = softmaxDropoutGrad(t(0), t(1), t(2), hidden);
      return [g.map((v, i) => ((t(3)[i % (16 * hidden)] as number) !== 0 ? 0 : v / 8))];
    }
    case 'huggingface_attn': {
      // attention_mask, scores [1, H, 16, S_k].
      const attn = softmaxRows(Array.from(t(1), (v, i) => v + (t(0)[i] as number)), hidden);
      return [attn.map((a, i) => a * (keep[i] as number) * keepScale), attn, Array.from(keep)];
    }
    case 'huggingface_attn_bwd':
      return [softmaxDropoutGrad(t(0), t(1), t(2), hidden)];
    default: {
      const unreachable: never = family;
      throw new Error(String(unreachable));
    }
  }
}

describe('nvFuser model-shaped benchmark families in the sweep (issue 38)', () => {
  it.each(FAMILIES)('%s equals float64 math (Float, reference backend)', async (family) => {
    const [rows, hidden] = CHECK_POINT[family];
    const rng = new Random(seed);
    const specs = sweepInputs(family, 'Float', rows, hidden);
    const hosts = specs.map((i) => (i.scalar !== undefined ? i.scalar : randomHost(i, rng)));
    const args: ExecuteInput[] = hosts.map((h) => (typeof h === 'number' ? h : Tensor.fromHost(h)));
    const outs = await sweepDefinition(family, 'Float').execute(args, { backend: 'reference' });
    // The forward's keep mask is drawn over the softmax's shape: 4-D for nanoGPT, [B·H, S_q, S_k] for HuggingFace.
    const heads = rows / 16;
    const keep = family === 'nanogpt_attn' ? await keepMask([1, heads, 16, hidden]) : family === 'huggingface_attn' ? await keepMask([heads, 16, hidden]) : new Float64Array(0);
    const want = expected(
      family,
      rows,
      hidden,
      hosts.filter((h): h is HostTensor => typeof h !== 'number').map((h) => h.toFloat64Array()),
      keep,
    );
    expect(outs.length, `seed ${seed}`).toBe(want.length);
    outs.forEach((o, k) => {
      const got = o.toHost().toFloat64Array();
      const w = want[k] as number[];
      expect(got.length, `seed ${seed}, output ${k}`).toBe(w.length);
      w.forEach((e, i) => expect(Math.abs((got[i] as number) - e), `seed ${seed}, output ${k}, element ${i}: ${got[i]} vs ${e}`).toBeLessThanOrEqual(1e-5 + 2e-5 * Math.abs(e)));
    });
    if (keep.length > 0) {
      // p = 0.2 of 1184 scores: the mask drops some and keeps most.
      const dropped = keep.reduce((a, v) => a + (1 - v), 0);
      expect(dropped).toBeGreaterThan(150);
      expect(dropped).toBeLessThan(330);
    }
  });

  it('the causal masks: query q of the last 16 sees keys 0 … S_k − 16 + q', () => {
    const specs = sweepInputs('nanogpt_attn', 'Float', 32, 37);
    expect(specs.map((i) => i.values !== undefined)).toEqual([false, true, false, false]);
    const bias = specs[1]?.values?.() as HostTensor;
    const b = bias.toFloat64Array();
    expect(bias.sizes).toEqual([1, 1, 16, 37]);
    // Query 0 sees keys 0 … 21, query 15 all 37.
    expect(Array.from(b.subarray(0, 37)).reduce((a, v) => a + v, 0)).toBe(22);
    expect(Array.from(b.subarray(21, 23))).toEqual([1, 0]);
    expect(Array.from(b.subarray(15 * 37)).every((v) => v === 1)).toBe(true);
    const m = (sweepInputs('nanogpt_attn_bwd', 'Float', 32, 37)[3]?.values?.() as HostTensor).toFloat64Array();
    expect(Array.from(m, (v, i) => v + (b[i] as number)).every((v) => v === 1)).toBe(true);
  });

  it('points: group_norm_bwd needs rows = N · 64, the attention glue H · 16, rope hidden = H · 128', () => {
    const sizes: [number, number][] = [[16, 768], [128, 1600], [1024, 4098], [1024, 4096], [24, 768]];
    const names = (family: Family): string[] => sweepPoints({ families: [family], dtypes: ['BFloat16'], sizes }).map(pointName);
    expect(names('group_norm_bwd')).toEqual(['group_norm_bwd_bf16_128x1600', 'group_norm_bwd_bf16_1024x4096', 'group_norm_bwd_bf16_1024x4098']);
    expect(names('rope')).toEqual(['rope_bf16_16x768', 'rope_bf16_24x768', 'rope_bf16_1024x4096']);
    expect(names('nanogpt_attn')).toEqual(['nanogpt_attn_bf16_16x768', 'nanogpt_attn_bf16_128x1600', 'nanogpt_attn_bf16_1024x4096', 'nanogpt_attn_bf16_1024x4098']);
    expect(names('cat')).toHaveLength(5);
  });

  it('the default sweep holds every family, and `--list` names the requested points', async () => {
    const all = sweepPoints();
    for (const family of FAMILIES) expect(all.filter((p) => p.family === family).length, family).toBeGreaterThanOrEqual(family.startsWith('rope') ? 2 * (92 - 52) : 2 * (92 - 23));
    const r = await runCli(['bench', '--suite', 'sweep', '--family', FAMILIES.join(','), '--dtype', 'bf16,f32', '--sizes', '1024x4096,16384x4096', '--list']);
    expect(r.code, r.stderr).toBe(0);
    for (const family of FAMILIES) expect(r.stdout).toContain(`${family}_bf16_16384x4096`);
    expect(r.stdout).toMatch(/\n44 points\n$/);
  });

  it('bytes: every input read once, every output written once (masks 1 byte, statistics f32)', () => {
    const p = (family: Family, rows: number, hidden: number): SweepPoint => ({ family, dtype: 'BFloat16', rows, hidden });
    expect(pointBytes(p('group_norm_bwd', 128, 16))).toBe((3 * 2048 + 3 * 64) * 2 + 2 * 64 * 4);
    expect(pointBytes(p('rope', 8, 256))).toBe((2 * 2048 + 2 * 8 * 128) * 2);
    expect(pointBytes(p('rope_bwd', 8, 256))).toBe((2 * 2048 + 2 * 8 * 128) * 2);
    expect(pointBytes(p('col_sum', 8, 16))).toBe((128 + 16) * 2);
    expect(pointBytes(p('softmax_outer', 8, 16))).toBe(2 * 128 * 2);
    expect(pointBytes(p('softmax_bwd_outer', 8, 16))).toBe(3 * 128 * 2);
    expect(pointBytes(p('cat', 8, 16))).toBe(2 * 128 * 2);
    expect(pointBytes(p('nanogpt_attn', 32, 16))).toBe(3 * 512 * 2 + 512 + 16 * 16 * 4 + 16 * 16);
    expect(pointBytes(p('nanogpt_attn_bwd', 32, 16))).toBe(3 * 512 * 2 + 512 + 16 * 16);
    expect(pointBytes(p('huggingface_attn', 32, 16))).toBe(4 * 512 * 2 + 512);
    expect(pointBytes(p('huggingface_attn_bwd', 32, 16))).toBe(3 * 512 * 2 + 512);
  });

  it('bf16 definitions take the inputs sweepInputs lists, dtype for dtype', () => {
    for (const family of FAMILIES) {
      const fusion = sweepDefinition(family, 'BFloat16').fusionIr();
      const inputs = sweepInputs(family, 'BFloat16', 1024, 768);
      expect(fusion.inputs.map((v) => ('dtype' in v ? v.dtype : 'none')), family).toEqual(inputs.map((i) => i.dtype));
    }
  });
});

describe('the GPU path on the fake H100 (no GPU) takes every model-shaped family with the inputs runSweep makes', () => {
  it.each(['Float', 'BFloat16'] as const)('%s: each family at 1024x768 is segmented, lowered and launched', async (dtype) => {
    const fake = fakeDevice();
    const backend = createGpuBackend({ cubinDirectory: null, deviceContext: () => fake.device });
    for (const family of FAMILIES) {
      const before = fake.launches.length;
      const inputs: ExecuteInput[] = sweepInputs(family, dtype, 1024, 768).map((i) => i.scalar ?? Tensor.emptyDevice(fake.device, i.dtype, i.sizes));
      const outs = await sweepDefinition(family, dtype).execute(inputs, { backend });
      expect(outs.length, family).toBeGreaterThan(0);
      expect(fake.launches.length, family).toBeGreaterThan(before);
      // nanoGPT's broadcast causal mask leaves as an expanded view of [16, S_k] (as nvFuser's):
      // pointBytes counts 16 · S_k bytes for it, not one per score.
      if (family === 'nanogpt_attn') {
        expect((outs[3] as Tensor).strides).toEqual([0, 0, 768, 1]);
        expect((outs[3] as Tensor).storageBytes).toBe(16 * 768);
      }
    }
  }, 300000);
});

describe('issue 38 backward glue on the fake H100 at 16384x4096: the plans the H200 sweep runs', () => {
  it.each(['Float', 'BFloat16'] as const)('%s: group_norm_bwd and instance_norm_bwd are 3 kernels (dx, dw, db), huggingface_attn_bwd 1 with a vector store', async (dtype) => {
    const fake = fakeDevice();
    const backend = createGpuBackend({ cubinDirectory: null, deviceContext: () => fake.device });
    const launched = async (family: 'group_norm_bwd' | 'instance_norm_bwd' | 'huggingface_attn_bwd'): Promise<string[]> => {
      const before = fake.launches.length;
      const inputs: ExecuteInput[] = sweepInputs(family, dtype, 16384, 4096).map((i) => i.scalar ?? Tensor.emptyDevice(fake.device, i.dtype, i.sizes));
      await sweepDefinition(family, dtype).execute(inputs, { backend });
      return fake.launches.slice(before).map((l) => l.kernel);
    };
    for (const family of ['group_norm_bwd', 'instance_norm_bwd'] as const) {
      // Before the segmenter recomputed x̂ and dy·w per segment: 4 reduction kernels and full-size f32 intermediates.
      const kernels = await launched(family);
      expect(kernels.map((k) => (k.includes('inner_persistent') ? 'inner_persistent' : k.includes('reduction') ? 'reduction' : k)).sort(), family).toEqual(['inner_persistent', 'reduction', 'reduction']);
    }
    const [hf] = await launched('huggingface_attn_bwd');
    expect(hf).toBeDefined();
    const vec = dtype === 'Float' ? 4 : 8;
    const source = [...fake.sources.values()].find((src) => src.includes(`void ${hf as string}(`) || src.includes(` ${hf as string}(`)) ?? '';
    expect(source).toMatch(new RegExp(`loadLocalToGlobal<\\w+, ${vec}>`));
  }, 300000);
});
