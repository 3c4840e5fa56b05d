// GEMM segments in the dumps and --explain without a GPU: an MLP (linear + bias → gelu(tanh) →
// linear + bias → a square) as a definition file runs on the reference backend, and its
// compile-side dumps show two cuBLASLt calls and one generated kernel — the launch plan
// (host_ir) names each GEMM with m / n / k and its epilogue, scheduler_params prints the
// Matmul Parameters, fusion_ir_segments counts the calls apart from kernels and says why each
// boundary is one (golden: UPDATE_GOLDEN=1 rewrites it); --explain says the same.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkGolden } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers.js';

const GOLDEN = fileURLToPath(new URL('../../../test-fixtures/golden/tsfuser/dumps/', import.meta.url));

const MLP = [
  'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :',
  '    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)',
  '    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)',
  '    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)',
  '    T3 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)',
  '    T4 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)',
  '    T5 = fd.ops.linear(T0, T1, bias=T2)',
  '    T6 = fd.ops.gelu(T5, approximate="tanh")',
  '    T7 = fd.ops.linear(T6, T3, bias=T4)',
  '    T8 = fd.ops.mul(T7, T7)',
  '    fd.add_output(T8)',
  '',
  'inputs = [',
  "    torch.randn(16, 32, dtype=torch.bfloat16, device='cuda:0'),",
  "    torch.randn(64, 32, dtype=torch.bfloat16, device='cuda:0'),",
  "    torch.randn(64, dtype=torch.bfloat16, device='cuda:0'),",
  "    torch.randn(32, 64, dtype=torch.bfloat16, device='cuda:0'),",
  "    torch.randn(32, dtype=torch.bfloat16, device='cuda:0'),",
  ']',
  'fd.execute(inputs)',
].join('\n');

function mlpFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'tsfuser-gemm-')), 'mlp.py');
  writeFileSync(file, MLP);
  return file;
}

describe('GEMM segments in the dumps', () => {
  it('host_ir, scheduler_params and fusion_ir_segments of an MLP (golden)', async () => {
    const r = await runCli(['run', mlpFile(), '--backend', 'reference', '--dump', 'fusion_ir_segments,scheduler_params,host_ir']);
    expect(r.code).toBe(0);
    const dumps = r.stdout.slice(0, r.stdout.indexOf('mlp.py: fusion id'));
    expect(dumps).toContain('Fusion IR with segments: 3 segments (1 kernel, 2 cuBLASLt calls), 2 edges');
    expect(dumps).toContain('segment 0 (matmul): no kernel; cuBLASLt GEMM m 16 n 64 k 32 batch 1, epilogue GELU_BIAS; reads arg0, arg1, arg2; writes buf0');
    expect(dumps).toContain('segment 1 (matmul): no kernel; cuBLASLt GEMM m 16 n 32 k 64 batch 1, epilogue BIAS');
    expect(dumps).toMatch(/mul producing T\d+ has no cuBLASLt epilogue/);
    expect(dumps.match(/===== Matmul Parameters/g)).toHaveLength(2);
    const g = checkGolden(dumps.slice(0, dumps.lastIndexOf('\n') + 1), join(GOLDEN, 'mlp_gemm.fusion_ir_segments.txt'), process.env['UPDATE_GOLDEN'] === '1');
    expect(g.diff).toBe('');
  });

  it('--explain names the GEMM segments and the boundaries', async () => {
    const r = await runCli(['run', mlpFile(), '--backend', 'reference', '--explain']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/segment 0 \[matmul\].*one cuBLASLt GEMM with its fused epilogue, no kernel/);
    expect(r.stdout).toMatch(/segment 2 \[pointwise\]/);
  });
});
