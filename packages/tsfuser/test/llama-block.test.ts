// The LLaMA decoder block's definitions (src/bench/llama-block-*.ts) on the reference evaluator
// against PyTorch: the forward's y and saved activations and the backward's dx and nine weight
// grads, on the inputs of test-fixtures/torch-values/llama-block.json
// (tools/torch-values/llama_block_values.py: the HF-style nn.Module of tools/bench/llama_block.py,
// seeded), for a multi-head and a grouped-query block. The backward is checked on consistent
// saved activations only — never random ones, whose o and lse disagree with q, k, v and turn
// rounding differences into errors no kernel made: alone on the activations PyTorch's bf16
// forward saved (in the fixture), and chained on the reference forward's own.
// Norm-wise rule (the one of tools/bench/llama_block_check.py): e = ‖got − want‖₂ / ‖want‖₂
// against the float64 PyTorch run; pass when e ≤ 10⁻² (bf16) and e ≤ 2 × bf16 PyTorch's own
// error. The chained step carries the forward's rounding differences into the grads (the
// reference rounds each GEMM once from its exact sum, PyTorch's bf16 GEMM accumulates in f32), so
// there the ceiling is 2·10⁻² with the same ratio. A backward with RoPE's adjoint sign flipped
// fails the rule (asserted: the check can fail). The fraction of elements past `tsfuser run
// --check`'s element-wise bf16 rule is printed beside, for information: PyTorch's own bf16 grads
// are past it in 3–20% of their elements, so it cannot tell a kernel bug from rounding here.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { Tensor } from '../src/index.js';
import { checkLlamaConfig, LLAMA_SMALL_CONFIG, type LlamaBlockConfig } from '../src/bench/llama-block-config.js';
import { llamaBlockForward, llamaSavedShapes, LLAMA_FORWARD_INPUTS, LLAMA_SAVED, type LlamaSavedName } from '../src/bench/llama-block-forward.js';
import { llamaBlockBackward, LLAMA_GRADS } from '../src/bench/llama-block-backward.js';
import { ropeTables } from '../src/bench/llama-block-workloads.js';
import { runLlamaCheck } from '../src/bench/llama-block-check.js';
import { toleranceFor } from '../src/io/compare.js';
import { readNpyFile, writeNpyFile } from '../src/io/npy-file.js';

/** The norm-wise bound of a bf16 block's outputs against float64. */
const BF16_NORM_TOLERANCE = 1e-2;
/** The chained step's ceiling (forward and backward rounding together; see the header). */
const CHAINED_NORM_CEILING = 2e-2;
/** How far above bf16 PyTorch's own norm-wise error an output may be. */
const RATIO_TO_TORCH = 2;
/** Below this the ratio is not asked for (f32 statistics: f32 rounding alone). */
const RATIO_FLOOR = 1e-6;

interface Encoded {
  shape: number[];
  bf16: string;
}
interface Case {
  name: string;
  config: LlamaBlockConfig;
  inputs: Record<string, Encoded>;
  bf16: { y: string; grads: Record<string, string> };
  float64: { y: string; grads: Record<string, string> };
  /** PyTorch's bf16 forward's saved activations (bf16 bits; rstd1, rstd2, lse as f32), the philox pair left out. */
  saved: Record<string, string>;
}
const fixture = JSON.parse(readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/llama-block.json', import.meta.url)), 'utf8')) as { seed: number; torch: string; cases: Case[] };

function bytes(b64: string): Uint8Array {
  const b = Buffer.from(b64, 'base64');
  // A copy: typed-array views need an aligned offset.
  return new Uint8Array(b);
}

/** bf16 bits (little-endian uint16) → their values. */
function decodeBf16(b64: string): number[] {
  const bits = new Uint16Array(bytes(b64).buffer);
  const wide = new Uint32Array(bits.length);
  bits.forEach((v, i) => (wide[i] = v << 16));
  return Array.from(new Float32Array(wide.buffer));
}

function decodeF32(b64: string): number[] {
  return Array.from(new Float32Array(bytes(b64).buffer));
}

function relativeError(got: readonly number[], want: readonly number[]): number {
  expect(got.length).toBe(want.length);
  let num = 0;
  let den = 0;
  want.forEach((w, i) => {
    const d = (got[i] as number) - w;
    num += d * d;
    den += w * w;
  });
  return Math.sqrt(num / den);
}

function tensorOf(e: Encoded | undefined, name: string): Tensor {
  if (e === undefined) throw new Error(`fixture lacks input ${name}`);
  return Tensor.from(decodeBf16(e.bf16), e.shape, 'BFloat16');
}

function valuesOf(t: Tensor | undefined): number[] {
  if (t === undefined) throw new Error('missing output');
  return t.toArray().map(Number);
}

/** The fixture's PyTorch saved activations as backward inputs (LLAMA_SAVED order); the philox pair, which a dropout-free sdpfa_bwd ignores, from `philox`. */
function torchSaved(c: Case, philox: Record<'philox_seed' | 'philox_offset', Tensor>): Tensor[] {
  const shapes = llamaSavedShapes(c.config);
  return LLAMA_SAVED.map((n) => {
    if (n === 'philox_seed' || n === 'philox_offset') return philox[n];
    const text = c.saved[n];
    if (text === undefined) throw new Error(`fixture lacks saved ${n}`);
    const { sizes, dtype } = shapes[n];
    return Tensor.from(dtype === 'Float' ? decodeF32(text) : decodeBf16(text), sizes, dtype);
  });
}

interface Run {
  y: number[];
  /** The training forward's saved activations, by name. */
  saved: Map<LlamaSavedName, Tensor>;
  /** The backward on PyTorch's saved activations. */
  grads: Record<string, number[]>;
  /** The backward on the reference forward's own saved activations. */
  chained: Record<string, number[]>;
}

async function runBlock(c: Case, options: { wrongRopeAdjoint?: boolean } = {}): Promise<Run> {
  const inputs = LLAMA_FORWARD_INPUTS.map((n) => tensorOf(c.inputs[n], n));
  const forward = await llamaBlockForward(c.config, { saveForBackward: true }).execute(inputs, { backend: 'reference' });
  const saved = new Map(LLAMA_SAVED.map((n, i) => [n, forward[1 + i] as Tensor]));
  const philox = { philox_seed: saved.get('philox_seed') as Tensor, philox_offset: saved.get('philox_offset') as Tensor };
  const dy = tensorOf(c.inputs['dy'], 'dy');
  const backward = llamaBlockBackward(c.config, options);
  const byName = (ts: Tensor[]): Record<string, number[]> => Object.fromEntries(LLAMA_GRADS.map((n, i) => [n, valuesOf(ts[i])]));
  const grads = await backward.execute([dy, ...inputs, ...torchSaved(c, philox)], { backend: 'reference' });
  const chained = await backward.execute([dy, ...inputs, ...forward.slice(1)], { backend: 'reference' });
  return { y: valuesOf(forward[0]), saved, grads: byName(grads), chained: byName(chained) };
}

function wantOf(c: Case, which: 'bf16' | 'float64', name: string | null): number[] {
  const text = name === null ? c[which].y : c[which].grads[name];
  if (text === undefined) throw new Error(`fixture lacks ${which} ${name ?? 'y'}`);
  return which === 'bf16' ? decodeBf16(text) : decodeF32(text);
}

/** The fraction of elements past `tsfuser run --check`'s bf16 rule |a − b| ≤ atol + rtol·|b| (information only). */
function elementwisePast(got: readonly number[], want: readonly number[]): number {
  const { atol, rtol } = toleranceFor('BFloat16');
  return got.filter((g, i) => !(Math.abs(g - (want[i] as number)) <= atol + rtol * Math.abs(want[i] as number))).length / want.length;
}

interface Verdict {
  ours: number;
  torch: number;
  ok: boolean;
  row: string;
}

/** The norm-wise rule of the header for one output: tsfuser's and bf16 PyTorch's error against float64. */
function judge(label: string, ours: readonly number[], c: Case, name: string | null, ceiling: number): Verdict {
  const exact = wantOf(c, 'float64', name);
  const torchValues = wantOf(c, 'bf16', name);
  const e = relativeError(ours, exact);
  const t = relativeError(torchValues, exact);
  const ok = e <= ceiling && e <= Math.max(RATIO_TO_TORCH * t, RATIO_FLOOR);
  const past = `${(100 * elementwisePast(ours, exact)).toFixed(1)}% / ${(100 * elementwisePast(torchValues, exact)).toFixed(1)}%`;
  return { ours: e, torch: t, ok, row: `${label.padEnd(28)} tsfuser ${e.toExponential(2)}  torch bf16 ${t.toExponential(2)}  ×${(e / t).toFixed(2)}  element-wise past ${past}` };
}

describe('LLaMA decoder block definitions against PyTorch (reference evaluator)', () => {
  console.log(`llama-block fixture: seed ${fixture.seed}, torch ${fixture.torch}, cases ${fixture.cases.map((c) => c.name).join(', ')}`);
  const runs = new Map<string, Promise<Run>>();
  const runOf = (c: Case): Promise<Run> => {
    const r = runs.get(c.name) ?? runBlock(c);
    runs.set(c.name, r);
    return r;
  };
  const cases = fixture.cases.map((c) => [c.name, c] as const);

  it.each(cases)('%s: y and the backward alone on PyTorch\'s saved activations: every grad ≤ 1e-2 of float64 and ≤ 2× bf16 PyTorch\'s error', async (_name, c) => {
    const run = await runOf(c);
    const verdicts = [judge('y', run.y, c, null, BF16_NORM_TOLERANCE), ...LLAMA_GRADS.map((n) => judge(`d ${n}`, run.grads[n] as number[], c, n, BF16_NORM_TOLERANCE))];
    console.log(`${c.name} (seed ${fixture.seed}), backward on PyTorch's saved activations, ‖·−float64‖/‖float64‖:\n${verdicts.map((v) => v.row).join('\n')}`);
    for (const [i, v] of verdicts.entries()) expect(v.ok, `${c.name} ${i === 0 ? 'y' : LLAMA_GRADS[i - 1]}: ${v.row}`).toBe(true);
  });

  it.each(cases)('%s: the chained step (the backward on the reference forward\'s saves): every grad ≤ 2× bf16 PyTorch\'s error (ceiling 2e-2)', async (_name, c) => {
    const run = await runOf(c);
    const verdicts = LLAMA_GRADS.map((n) => judge(`d ${n} (chained)`, run.chained[n] as number[], c, n, CHAINED_NORM_CEILING));
    console.log(`${c.name}, chained:\n${verdicts.map((v) => v.row).join('\n')}`);
    for (const [i, v] of verdicts.entries()) expect(v.ok, `${c.name} ${LLAMA_GRADS[i] ?? ''}: ${v.row}`).toBe(true);
  });

  it.each(cases)('%s: the training forward saves what PyTorch\'s bf16 forward saves (each activation within 1e-2 norm-wise)', async (_name, c) => {
    const run = await runOf(c);
    const philox = { philox_seed: run.saved.get('philox_seed') as Tensor, philox_offset: run.saved.get('philox_offset') as Tensor };
    const torch = torchSaved(c, philox);
    const rows: string[] = [];
    LLAMA_SAVED.forEach((n, i) => {
      if (n === 'philox_seed' || n === 'philox_offset') return;
      const e = relativeError(valuesOf(run.saved.get(n)), valuesOf(torch[i]));
      rows.push(`${n} ${e.toExponential(2)}`);
      expect(e, `${c.name} saved ${n}`).toBeLessThanOrEqual(BF16_NORM_TOLERANCE);
    });
    console.log(`${c.name}: ‖reference saved − PyTorch bf16 saved‖/‖PyTorch‖: ${rows.join(', ')}`);
  });

  it('the inference forward computes the training forward\'s y, bit for bit', async () => {
    const c = fixture.cases[0] as Case;
    const inputs = LLAMA_FORWARD_INPUTS.map((n) => tensorOf(c.inputs[n], n));
    const [y] = await llamaBlockForward(c.config, { saveForBackward: false }).execute(inputs, { backend: 'reference' });
    expect(valuesOf(y)).toEqual((await runOf(c)).y);
  });

  it('a backward with the RoPE adjoint sign flipped fails the rule (dWq, dWk, dx), on PyTorch\'s saves and chained', async () => {
    const c = fixture.cases[0] as Case;
    const wrong = await runBlock(c, { wrongRopeAdjoint: true });
    for (const name of ['wq', 'wk', 'x']) {
      for (const [label, got] of [['', wrong.grads], [' (chained)', wrong.chained]] as const) {
        const v = judge(`d ${name}${label}`, got[name] as number[], c, name, BF16_NORM_TOLERANCE);
        console.log(`flipped RoPE adjoint: ${v.row}`);
        expect(v.ok, v.row).toBe(false);
        expect(v.ours).toBeGreaterThan(CHAINED_NORM_CEILING);
      }
    }
    // What RoPE's adjoint does not reach stays right: the MLP's and o_proj's grads.
    expect(judge('d w_down', wrong.grads['w_down'] as number[], c, 'w_down', BF16_NORM_TOLERANCE).ok).toBe(true);
  });

  it.each(cases)("%s: the bench's RoPE tables are HF's (bf16 cos / sin, bit for bit)", (_name, c) => {
    const { cos, sin } = ropeTables(c.config);
    const want = (n: string): number[] => decodeBf16(c.inputs[n]?.bf16 ?? '');
    const mismatches = (got: readonly number[], w: readonly number[]): number => got.filter((g, i) => g !== w[i]).length;
    const values = (h: typeof cos): number[] => Array.from({ length: h.numel }, (_, i) => h.getNumber(i));
    const [gotCos, gotSin] = [values(cos), values(sin)];
    expect(gotCos.length).toBe(want('cos').length);
    const off = mismatches(gotCos, want('cos')) + mismatches(gotSin, want('sin'));
    console.log(`${c.name}: RoPE tables, ${off} of ${2 * gotCos.length} elements differ from HF's`);
    expect(off).toBe(0);
  });

  it('runLlamaCheck (the GPU entry tsfuser-llama-check) reads .npy inputs and saved activations and writes what PyTorch compares', async () => {
    // The grouped-query case: the smaller block (the chain's plumbing is what is tested here).
    const c = fixture.cases[1] as Case;
    const dir = mkdtempSync(join(tmpdir(), 'llama-check-'));
    for (const name of [...LLAMA_FORWARD_INPUTS, 'dy']) writeNpyFile(join(dir, `${name}.npy`), tensorOf(c.inputs[name], name).toHost());
    // As llama_block_check.py writes them: the philox pair as uint64 zeros.
    const zeros = { philox_seed: Tensor.fromHost(HostTensor.fromValues('UInt64', [2], [0n, 0n])), philox_offset: Tensor.fromHost(HostTensor.fromValues('UInt64', [], [0n])) };
    torchSaved(c, zeros).forEach((t, i) => writeNpyFile(join(dir, `saved_${LLAMA_SAVED[i] ?? ''}.npy`), t.toHost()));
    const r = await runLlamaCheck(dir, c.config, 'reference');
    const kept = LLAMA_SAVED.filter((n) => n !== 'philox_seed' && n !== 'philox_offset');
    expect(r.written).toEqual(['out_y_inference.npy', 'out_y.npy', ...kept.map((n) => `out_saved_${n}.npy`), ...LLAMA_GRADS.map((n) => `grad_${n}.npy`), ...LLAMA_GRADS.map((n) => `grad_chain_${n}.npy`)]);
    const read = (file: string): number[] => {
      const h = readNpyFile(join(dir, file));
      return Array.from({ length: h.numel }, (_, i) => h.getNumber(i));
    };
    expect(read('out_y_inference.npy')).toEqual(read('out_y.npy'));
    // The files hold what the definitions compute in this process.
    const run = await runOf(c);
    expect(read('out_y.npy')).toEqual(run.y);
    expect(read('out_saved_lse.npy')).toEqual(valuesOf(run.saved.get('lse')));
    for (const name of LLAMA_GRADS) {
      expect(read(`grad_${name}.npy`), name).toEqual(run.grads[name]);
      expect(read(`grad_chain_${name}.npy`), name).toEqual(run.chained[name]);
    }
  });

  it('refuses a config it cannot build with one message naming the field', () => {
    expect(() => checkLlamaConfig({ ...LLAMA_SMALL_CONFIG, headDim: 15 })).toThrow(/headDim must be even/);
    expect(() => checkLlamaConfig({ ...LLAMA_SMALL_CONFIG, kvHeads: 3 })).toThrow(/heads \(4\) must be a multiple of kvHeads \(3\)/);
    expect(() => llamaBlockForward({ ...LLAMA_SMALL_CONFIG, batch: 0 }, { saveForBackward: false })).toThrow(/batch must be a positive integer, got 0/);
  });

  it('refuses an input of other sizes than the config\'s, naming the input and the dim', async () => {
    const c = fixture.cases[0] as Case;
    const inputs = LLAMA_FORWARD_INPUTS.map((n) => tensorOf(c.inputs[n], n));
    const shorter = Tensor.from(new Array<number>(2 * 8 * c.config.hidden).fill(0.5), [2, 8, c.config.hidden], 'BFloat16');
    await expect(llamaBlockForward(c.config, { saveForBackward: false }).execute([shorter, ...inputs.slice(1)], { backend: 'reference' })).rejects.toThrow(/input 0: T0 dim 1 must have size 16, got size 8/);
  });
});
