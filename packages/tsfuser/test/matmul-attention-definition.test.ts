// matmul, linear, scaled_mm, grouped_mm, sdpfa_fwd and sdpfa_bwd through FusionDefinition:
// nvFuser's printed python_definition forms (python_translate.cpp: `fd.ops.linear(tv0, tv1,
// bias=tv2)`, sdpfa_fwd's four outputs and keywords), printed text that imports back to the same
// records, nvFuser's own printed definitions (tests/python/direct/test_matmul.py) imported and run
// on the reference backend against PyTorch's values (test-fixtures/torch-values/matmul.json), and
// the GPU path's refusal with the reason instead of a crash.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tensor } from '@tsfuser/device';
import { describe, expect, it } from 'vitest';
import { DataType, FusionCache, FusionDefinition, hashRecords, importPythonDefinition } from '../src/index.js';
import { explainSegments } from '../src/cli/explain.js';
import { runCli } from './helpers.js';

const cache = (): { cache: FusionCache } => ({ cache: new FusionCache() });

interface Operand {
  shape: number[];
  values: number[];
}
interface Case {
  op: string;
  dtype: string;
  a: Operand;
  b: Operand;
  bias?: Operand;
  outShape: number[];
  expected: number[];
}
const fixture = JSON.parse(readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/matmul.json', import.meta.url)), 'utf8')) as { cases: Case[] };

function floatCase(op: string, withBias: boolean, aShape: readonly number[]): Case {
  const c = fixture.cases.find((x) => x.op === op && x.dtype === 'Float' && (x.bias !== undefined) === withBias && x.a.shape.join() === aShape.join() && x.b.shape.length === 2);
  if (c === undefined) throw new Error(`no ${op} fixture`);
  return c;
}

function close(got: readonly number[], want: readonly number[], k: number): void {
  expect(got.length).toBe(want.length);
  got.forEach((g, i) => expect(Math.abs(g - (want[i] as number))).toBeLessThanOrEqual(2 ** -22 * (Math.abs(want[i] as number) + k)));
}

describe('GEMM and attention ops in FusionDefinition', () => {
  it("prints nvFuser's forms and imports back to the same records", () => {
    const fd = FusionDefinition.build((fd) => {
      const x = fd.defineTensor(3, DataType.BFloat16);
      const w = fd.defineTensor(2, DataType.BFloat16);
      const b = fd.defineTensor(1, DataType.BFloat16);
      fd.addOutput(fd.ops.linear(x, w, b));
      fd.addOutput(fd.ops.matmul(x, fd.ops.permute(w, [1, 0])));
      const q = fd.defineTensor(4, DataType.BFloat16);
      const k = fd.defineTensor(4, DataType.BFloat16);
      const v = fd.defineTensor(4, DataType.BFloat16);
      const [o, lse, seed, offset] = fd.ops.sdpfaFwd(q, k, v, null, null, 0.0, true, null);
      fd.addOutput(o);
      fd.addOutput(lse);
      const go = fd.defineTensor(4, DataType.BFloat16);
      const [gq, gk, gv] = fd.ops.sdpfaBwd(go, q, k, v, o, lse, 0.0, true, seed, offset, null);
      fd.addOutput(gq);
      fd.addOutput(gk);
      fd.addOutput(gv);
    }, cache());
    const py = fd.printPython();
    expect(py).toMatch(/T3 = fd\.ops\.linear\(T0, T1, bias=T2\)/);
    expect(py).toMatch(/T\d+ = fd\.ops\.matmul\(T0, T\d+\)/);
    expect(py).toMatch(/T\d+, T\d+, T\d+, T\d+ = fd\.ops\.sdpfa_fwd\(T\d+, T\d+, T\d+, bias=None, mask=None, dropout_p=S\d+, is_causal=S\d+, scale=None\)/);
    expect(py).toMatch(/T\d+, T\d+, T\d+ = fd\.ops\.sdpfa_bwd\(T\d+, T\d+, T\d+, T\d+, T\d+, T\d+, dropout_p=S\d+, is_causal=S\d+, philox_seed=T\d+, philox_offset=T\d+, scale=None\)/);
    const again = importPythonDefinition(py, cache());
    expect(hashRecords(again.records())).toBe(hashRecords(fd.records()));
  });

  it("imports nvFuser's printed linear (test_matmul.py's expected_fd_str) and runs it on the reference", async () => {
    const c = floatCase('linear', true, [4, 7]);
    const text = [
      'def nvfuser_fusion(fd : FusionDefinition) -> None :',
      '    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)',
      '    tv1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)',
      '    tv2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)',
      '    tv3 = fd.ops.linear(tv0, tv1, bias=tv2)',
      '    fd.add_output(tv3)',
    ].join('\n');
    const fd = importPythonDefinition(text, cache());
    const t = (o: Operand): Tensor => Tensor.from(Float32Array.from(o.values), o.shape, 'Float');
    const [out] = await fd.execute([t(c.a), t(c.b), t(c.bias as Operand)], { backend: 'reference' });
    expect(out?.sizes).toEqual(c.outShape);
    close((out?.toArray() ?? []).map(Number), c.expected, c.a.shape[c.a.shape.length - 1] as number);
  });

  it("imports nvFuser's matmul and sdpfa_fwd with positional and keyword arguments", async () => {
    const c = floatCase('matmul', false, [5, 7]);
    const text = [
      'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :',
      '    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)',
      '    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)',
      '    T2 = fd.ops.matmul(T0, T1)',
      '    T3 = fd.ops.reshape(T2, new_shape=[1, 1, 5, 3])',
      '    S4 = fd.define_scalar(0.00000, dtype=DataType.Double)',
      '    S5 = fd.define_scalar(True, dtype=DataType.Bool)',
      '    T6, T7, T8, T9 = fd.ops.sdpfa_fwd(T3, T3, T3, dropout_p=S4, is_causal=S5)',
      '    fd.add_output(T2)',
      '    fd.add_output(T6)',
      '    fd.add_output(T7)',
      '    fd.add_output(T8)',
    ].join('\n');
    const fd = importPythonDefinition(text, cache());
    const t = (o: Operand): Tensor => Tensor.from(Float32Array.from(o.values), o.shape, 'Float');
    const [mm, attn, lse, seed] = await fd.execute([t(c.a), t(c.b)], { backend: 'reference' });
    close((mm?.toArray() ?? []).map(Number), c.expected, 7);
    expect(attn?.sizes).toEqual([1, 1, 5, 3]);
    expect(lse?.sizes).toEqual([1, 1, 5]);
    expect(lse?.dtype).toBe('Float');
    expect(seed?.dtype).toBe('UInt64');
    expect(seed?.sizes).toEqual([2]);
    // causal: the first query row sees only key 0, so its output is value row 0 (= matmul row 0)
    const a = (attn?.toArray() ?? []).map(Number);
    const m = (mm?.toArray() ?? []).map(Number);
    a.slice(0, 3).forEach((x, i) => expect(x).toBeCloseTo(m[i] as number, 6));
  });

  it('bad shapes are one clear error with PyTorch’s words, at definition time', () => {
    expect(() =>
      FusionDefinition.build((fd) => {
        const a = fd.defineTensor({ shape: [2, 3], dtype: DataType.Float });
        const b = fd.defineTensor({ shape: [2, 3], dtype: DataType.Float });
        fd.addOutput(fd.ops.matmul(a, b));
      }, cache()),
    ).toThrow('mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)');
  });

  it('bad symbolic shapes are one clear error with PyTorch’s words, at execution', async () => {
    const fd = FusionDefinition.build((fd) => {
      const a = fd.defineTensor(2, DataType.Float);
      const b = fd.defineTensor(2, DataType.Float);
      fd.addOutput(fd.ops.matmul(a, b));
    }, cache());
    const z = (s: number[]): Tensor => Tensor.from(new Float32Array(s[0]! * s[1]!), s, 'Float');
    await expect(fd.execute([z([2, 3]), z([2, 3])], { backend: 'reference' })).rejects.toThrow('mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)');
  });

  it('the GPU path makes sdpfa_fwd an attention segment, the relu after it a kernel of its own with the reason', () => {
    const fd = FusionDefinition.build((fd) => {
      const q = fd.defineTensor(4, DataType.BFloat16);
      const [o] = fd.ops.sdpfaFwd(q, q, q, null, null, null, true, null);
      fd.addOutput(fd.ops.relu(o));
    }, cache());
    const q = Tensor.from(new Uint16Array(2 * 2 * 8 * 16), [2, 2, 8, 16], 'BFloat16');
    let text = '';
    try {
      text = explainSegments(fd.fusionIr(), [q]);
    } catch (e) {
      text = e instanceof Error ? e.message : String(e);
    }
    expect(text).toMatch(/segment 0 \[attention\] — reads T0; writes T1 \(a generated flash-attention forward kernel\)/);
    expect(text).toMatch(/T1 \(segment 0 \[attention\] → segment 1 \[pointwise\]\): no scheduler accepts them together — attention: attention prologues and epilogues are not fused into the attention kernel yet/);
  });

  it('`tsfuser run def.py` runs linear → gelu → sdpfa_fwd on the reference; the GPU path has segments for all of it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-attn-'));
    const file = join(dir, 'block.py');
    writeFileSync(
      file,
      [
        'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :',
        '    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False)',
        '    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)',
        '    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)',
        '    T3 = fd.ops.linear(T0, T1, bias=T2)',
        '    T4 = fd.ops.gelu(T3, approximate="tanh")',
        '    T5 = fd.ops.reshape(T4, new_shape=[2, 8, 2, 16])',
        '    T6 = fd.ops.permute(T5, dims=[0, 2, 1, 3])',
        '    S7 = fd.define_scalar(True, dtype=DataType.Bool)',
        '    T8, T9, T10, T11 = fd.ops.sdpfa_fwd(T6, T6, T6, is_causal=S7)',
        '    fd.add_output(T8)',
        '    fd.add_output(T9)',
        '',
        'inputs = [',
        "    torch.randn(2, 8, 16, dtype=torch.bfloat16, device='cuda:0'),",
        "    torch.randn(32, 16, dtype=torch.bfloat16, device='cuda:0'),",
        "    torch.randn(32, dtype=torch.bfloat16, device='cuda:0'),",
        ']',
        'fd.execute(inputs)',
      ].join('\n'),
    );
    const r = await runCli(['run', file, '--check', '--backend', 'reference', '--dump', 'fusion_ir_presched']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('out0: shape [2, 2, 8, 16] BFloat16');
    expect(r.stdout).toContain('out1: shape [2, 2, 8] Float');
    // The linear is a cuBLASLt segment and the sdpfa_fwd an attention segment: no GPU-path refusal is reported.
    expect(r.stdout).not.toMatch(/no scheduler accepts/);
  });

  it("imports nvFuser's own sdpfa definitions (tests/python/direct/test_sdpa.py: starred targets, contiguity=True, symbolic scalars)", async () => {
    // test_softmax_logsumexp: all-ones q, k, v [1, 1, 4, 8]: every score is 8/√8, so lse = √8 + log 4
    const lseText = [
      'def fusion_func(fd: FusionDefinition) -> None:',
      '    q = fd.define_tensor(',
      '        shape=[-1, -1, -1, -1],',
      '        dtype=DataType.BFloat16,',
      '    )',
      '    k = fd.define_tensor(shape=[-1, -1, -1, -1], dtype=DataType.BFloat16)',
      '    v = fd.define_tensor(shape=[-1, -1, -1, -1], dtype=DataType.BFloat16)',
      '    (',
      '        _,',
      '        lse,',
      '        *_,',
      '    ) = fd.ops.sdpfa_fwd(q, k, v, dropout_p=None, is_causal=None, scale=None)',
      '    fd.add_output(lse)',
    ].join('\n');
    const ones = (): Tensor => Tensor.from(new Uint16Array(32).fill(0x3f80), [1, 1, 4, 8], 'BFloat16');
    const [lse] = await importPythonDefinition(lseText, cache()).execute([ones(), ones(), ones()], { backend: 'reference' });
    (lse?.toArray() ?? []).map(Number).forEach((x) => expect(x).toBeCloseTo(Math.fround(Math.sqrt(8) + Math.log(4)), 6));
    // test_sdpa_bias_mask's definition (contiguity=True, `attn, *_ =`) and test_sdpa_bwd's
    // (positional sdpfa_bwd with define_scalar(value=None) inputs) import and print back.
    const biasMask = [
      'def fusion_func(fd: FusionDefinition) -> None:',
      '    q = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=True, dtype=DataType.BFloat16)',
      '    bias = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=True, dtype=DataType.BFloat16)',
      '    mask = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=True, dtype=DataType.Bool)',
      '    attn, *_ = fd.ops.sdpfa_fwd(q, q, q, bias=bias, mask=mask)',
      '    fd.add_output(attn)',
    ].join('\n');
    expect(importPythonDefinition(biasMask, cache()).printPython()).toMatch(/T\d+, T\d+, T\d+, T\d+ = fd\.ops\.sdpfa_fwd\(T0, T0, T0, bias=T1, mask=T2, dropout_p=None, is_causal=None, scale=None\)/);
    const bwd = [
      'def fusion_func(fd: FusionDefinition) -> None:',
      '    q = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=True, dtype=DataType.BFloat16, is_cpu=False)',
      '    logsumexp = fd.define_tensor(shape=[-1, -1, -1], contiguity=True, dtype=DataType.Float, is_cpu=False)',
      '    philox_seed = fd.define_tensor(shape=[2], contiguity=True, dtype=DataType.UInt64, is_cpu=False)',
      '    philox_offset = fd.define_tensor(shape=[], contiguity=True, dtype=DataType.UInt64, is_cpu=False)',
      '    dropout_p = fd.define_scalar(value=None, dtype=DataType.Double)',
      '    is_causal = fd.define_scalar(value=None, dtype=DataType.Bool)',
      '    scale = None',
      '    grad_query, grad_key, grad_value = fd.ops.sdpfa_bwd(',
      '        q, q, q, q, q, logsumexp, dropout_p, is_causal, philox_seed, philox_offset, scale,',
      '    )',
      '    fd.add_output(grad_query)',
      '    fd.add_output(grad_key)',
      '    fd.add_output(grad_value)',
    ].join('\n');
    expect(importPythonDefinition(bwd, cache()).printPython()).toMatch(/fd\.ops\.sdpfa_bwd\(T0, T0, T0, T0, T0, T1, dropout_p=S\d+, is_causal=S\d+, philox_seed=T2, philox_offset=T3, scale=None\)/);
    expect(() => importPythonDefinition(lseText.replace('(\n        _,', '(\n        *_,'), cache())).toThrow('multiple starred expressions in assignment');
  });
});
