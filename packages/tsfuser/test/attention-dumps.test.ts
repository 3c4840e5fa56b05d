// Attention segments in the dumps and --explain without a GPU: sdpfa_fwd (causal, GQA) between
// a scale of Q and a relu of its output, as a definition file run on the reference backend —
// fusion_ir_segments shows the attention segment apart from the generated kernels around it with
// the boundary reasons, scheduler_params the Attention Parameters (variant, N/H/Hkv/L/S/E,
// strides) and the generated kernel's tiling and launch, host_ir the attention launch (golden:
// UPDATE_GOLDEN=1 rewrites it); --explain says the same.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkGolden } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers.js';

const GOLDEN = fileURLToPath(new URL('../../../test-fixtures/golden/tsfuser/dumps/', import.meta.url));

const ATTENTION = [
  'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :',
  '    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False)',
  '    T1 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False)',
  '    T2 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False)',
  '    S3 = fd.define_scalar(0.5, dtype=DataType.Double)',
  '    T4 = fd.ops.mul(T0, S3)',
  '    T5 = fd.ops.cast(T4, dtype=DataType.BFloat16)',
  '    S6 = fd.define_scalar(True, dtype=DataType.Bool)',
  '    T7, T8, T9, T10 = fd.ops.sdpfa_fwd(T5, T1, T2, is_causal=S6)',
  '    T11 = fd.ops.relu(T7)',
  '    fd.add_output(T11)',
  '    fd.add_output(T8)',
  '',
  'inputs = [',
  "    torch.randn(2, 4, 24, 64, dtype=torch.bfloat16, device='cuda:0'),",
  "    torch.randn(2, 2, 40, 64, dtype=torch.bfloat16, device='cuda:0'),",
  "    torch.randn(2, 2, 40, 64, dtype=torch.bfloat16, device='cuda:0'),",
  ']',
  'fd.execute(inputs)',
].join('\n');

function attentionFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'tsfuser-attention-')), 'attention.py');
  writeFileSync(file, ATTENTION);
  return file;
}

describe('attention segments in the dumps', () => {
  it('host_ir, scheduler_params and fusion_ir_segments of sdpfa_fwd between two pointwise ops (golden)', async () => {
    const r = await runCli(['run', attentionFile(), '--backend', 'reference', '--dump', 'fusion_ir_segments,scheduler_params,host_ir']);
    expect(r.code).toBe(0);
    const dumps = r.stdout.slice(0, r.stdout.indexOf('attention.py: fusion id'));
    expect(dumps).toContain('Fusion IR with segments: 3 segments (3 kernels), 2 edges');
    expect(dumps).toContain('3 segments, 3 kernel launches');
    expect(dumps).toMatch(/segment 1 \[attention\] — reads T1, T2, T\d+; writes T\d+, T\d+ \(a generated flash-attention forward kernel\)/);
    expect(dumps).toMatch(/attention: attention prologues and epilogues are not fused into the attention kernel yet/);
    expect(dumps).toContain('Problem: N 2 H 4 Hkv 2 L 24 S 40 E 64');
    expect(dumps).toMatch(/segment 1 \(attention\): launch tsfuser_attention_fwd_bf16_e64_causal grid \(1, 4, 2\) block \(256, 1, 1\)/);
    const g = checkGolden(dumps.slice(0, dumps.lastIndexOf('\n') + 1), join(GOLDEN, 'attention_fwd.fusion_ir_segments.txt'), process.env['UPDATE_GOLDEN'] === '1');
    expect(g.diff).toBe('');
  });

  it('--explain names the attention segment and the boundaries', async () => {
    const r = await runCli(['run', attentionFile(), '--backend', 'reference', '--explain']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/segment 1 \[attention\].*a generated flash-attention forward kernel/);
    expect(r.stdout).toMatch(/attention prologues and epilogues are not fused into the attention kernel yet/);
  });
});
