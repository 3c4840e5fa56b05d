// The LLaMA decoder block's definitions (src/bench/llama-block-*.ts) on the reference evaluator
// against PyTorch: the forward's y and the backward's dx and nine weight grads, on the inputs of
// test-fixtures/torch-values/llama-block.json (tools/torch-values/llama_block_values.py: the
// HF-style nn.Module of tools/bench/llama_block.py, seeded), for a multi-head and a grouped-query
// block. Norm-wise check: ‖got − want‖₂ / ‖want‖₂ ≤ 2·10⁻² against the float64 PyTorch run, a
// bound bf16 eager PyTorch itself meets (asserted beside, so the tolerance is realistic), and one
// a backward with RoPE's adjoint sign flipped does not (asserted: the check can fail).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Tensor } from '../src/index.js';
import { checkLlamaConfig, LLAMA_SMALL_CONFIG, type LlamaBlockConfig } from '../src/bench/llama-block-config.js';
import { llamaBlockForward, LLAMA_FORWARD_INPUTS } from '../src/bench/llama-block-forward.js';
import { llamaBlockBackward, LLAMA_GRADS } from '../src/bench/llama-block-backward.js';
import { ropeTables } from '../src/bench/llama-block-workloads.js';
import { runLlamaCheck } from '../src/bench/llama-block-check.js';
import { readNpyFile, writeNpyFile } from '../src/io/npy-file.js';

/** The bound of ‖got − want‖ / ‖want‖ for a bf16 block (≈ 2.5 bf16 epsilons). */
const BF16_NORM_TOLERANCE = 2e-2;

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

interface Run {
  y: number[];
  grads: Record<string, number[]>;
}

async function runBlock(c: Case, options: { wrongRopeAdjoint?: boolean } = {}): Promise<Run> {
  const inputs = LLAMA_FORWARD_INPUTS.map((n) => tensorOf(c.inputs[n], n));
  const forward = await llamaBlockForward(c.config, { saveForBackward: true }).execute(inputs, { backend: 'reference' });
  const dy = tensorOf(c.inputs['dy'], 'dy');
  const grads = await llamaBlockBackward(c.config, options).execute([dy, ...inputs, ...forward.slice(1)], { backend: 'reference' });
  return { y: valuesOf(forward[0]), grads: Object.fromEntries(LLAMA_GRADS.map((n, i) => [n, valuesOf(grads[i])])) };
}

function wantOf(c: Case, which: 'bf16' | 'float64', name: string | null): number[] {
  const text = name === null ? c[which].y : c[which].grads[name];
  if (text === undefined) throw new Error(`fixture lacks ${which} ${name ?? 'y'}`);
  return which === 'bf16' ? decodeBf16(text) : decodeF32(text);
}

describe('LLaMA decoder block definitions against PyTorch (reference evaluator)', () => {
  console.log(`llama-block fixture: seed ${fixture.seed}, torch ${fixture.torch}, cases ${fixture.cases.map((c) => c.name).join(', ')}`);
  const runs = new Map<string, Promise<Run>>();
  const runOf = (c: Case): Promise<Run> => {
    const r = runs.get(c.name) ?? runBlock(c);
    runs.set(c.name, r);
    return r;
  };

  it.each(fixture.cases.map((c) => [c.name, c] as const))('%s: forward y and every grad within the bf16 bound of float64 PyTorch, as bf16 PyTorch is', async (_name, c) => {
    const run = await runOf(c);
    const rows: string[] = [];
    for (const name of [null, ...LLAMA_GRADS]) {
      const exact = wantOf(c, 'float64', name);
      const ours = relativeError(name === null ? run.y : (run.grads[name] as number[]), exact);
      const torch = relativeError(wantOf(c, 'bf16', name), exact);
      rows.push(`${(name === null ? 'y' : `d ${name}`).padEnd(18)} tsfuser ${ours.toExponential(2)}  torch bf16 ${torch.toExponential(2)}`);
      expect(ours, `${c.name} ${name ?? 'y'}`).toBeLessThanOrEqual(BF16_NORM_TOLERANCE);
      expect(torch, `${c.name} ${name ?? 'y'} (PyTorch bf16)`).toBeLessThanOrEqual(BF16_NORM_TOLERANCE);
    }
    console.log(`${c.name} (seed ${fixture.seed}), ‖·−float64‖/‖float64‖:\n${rows.join('\n')}`);
  });

  it('the inference forward computes the training forward\'s y, bit for bit', async () => {
    const c = fixture.cases[0] as Case;
    const inputs = LLAMA_FORWARD_INPUTS.map((n) => tensorOf(c.inputs[n], n));
    const [y] = await llamaBlockForward(c.config, { saveForBackward: false }).execute(inputs, { backend: 'reference' });
    expect(valuesOf(y)).toEqual((await runOf(c)).y);
  });

  it('a backward with the RoPE adjoint sign flipped fails the check (dWq, dWk, dx)', async () => {
    const c = fixture.cases[0] as Case;
    const wrong = await runBlock(c, { wrongRopeAdjoint: true });
    for (const name of ['wq', 'wk', 'x']) {
      const err = relativeError(wrong.grads[name] as number[], wantOf(c, 'float64', name));
      console.log(`flipped RoPE adjoint: d ${name} error ${err.toExponential(2)}`);
      expect(err, name).toBeGreaterThan(BF16_NORM_TOLERANCE);
    }
    // What RoPE's adjoint does not reach stays right: the MLP's and o_proj's grads.
    expect(relativeError(wrong.grads['w_down'] as number[], wantOf(c, 'float64', 'w_down'))).toBeLessThanOrEqual(BF16_NORM_TOLERANCE);
  });

  it.each(fixture.cases.map((c) => [c.name, c] as const))("%s: the bench's RoPE tables are HF's (bf16 cos / sin, bit for bit)", (_name, c) => {
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

  it('runLlamaCheck (the GPU entry tsfuser-llama-check) reads .npy inputs and writes y and the grads PyTorch compares', async () => {
    const c = fixture.cases[0] as Case;
    const dir = mkdtempSync(join(tmpdir(), 'llama-check-'));
    for (const name of [...LLAMA_FORWARD_INPUTS, 'dy']) writeNpyFile(join(dir, `${name}.npy`), tensorOf(c.inputs[name], name).toHost());
    const r = await runLlamaCheck(dir, c.config, 'reference');
    expect(r.written).toEqual(['out_y_inference.npy', 'out_y.npy', ...LLAMA_GRADS.map((n) => `grad_${n}.npy`)]);
    const read = (file: string): number[] => {
      const h = readNpyFile(join(dir, file), 'BFloat16');
      return Array.from({ length: h.numel }, (_, i) => h.getNumber(i));
    };
    expect(read('out_y_inference.npy')).toEqual(read('out_y.npy'));
    expect(relativeError(read('out_y.npy'), wantOf(c, 'float64', null))).toBeLessThanOrEqual(BF16_NORM_TOLERANCE);
    for (const name of LLAMA_GRADS) expect(relativeError(read(`grad_${name}.npy`), wantOf(c, 'float64', name)), name).toBeLessThanOrEqual(BF16_NORM_TOLERANCE);
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
