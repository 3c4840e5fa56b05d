// The LLaMA decoder block's bench workloads without a GPU: the plans the GPU path makes at the
// LLaMA-7B size (B2 T2048 D4096 H32 E128 ffn 11008) for the inference forward, the training
// forward and the backward (compileForArguments: the segmenter and the runtime's
// buildCompilePlan for an H100-class target), segment by segment — every GEMM a cuBLASLt
// libraryCall, both attentions attention segments, the rest generated kernels or views — and
// the workloads' byte and flop counts (a multi-step workload counts every step's traffic).
import { describe, expect, it } from 'vitest';
import { contiguousStrides, dataTypeSize, type Fusion } from '@tsfuser/fusion-ir';
import { fusionIrSegmentsToString } from '@tsfuser/scheduler';
import { compileForArguments, type TargetCompilation } from '../src/dumps/compile-for-target.js';
import { DEFAULT_TARGET } from '../src/dumps/target.js';
import { LLAMA_7B_CONFIG, llamaForwardFlops, llamaTrainingStepFlops } from '../src/bench/llama-block-config.js';
import { llamaSavedShapes, LLAMA_SAVED } from '../src/bench/llama-block-forward.js';
import { llamaForwardWorkload, llamaTrainingWorkload } from '../src/bench/llama-block-workloads.js';
import { benchWorkloads, type Workload } from '../src/bench/workloads.js';

const c = LLAMA_7B_CONFIG;

function plan(fusion: Fusion, sizes: readonly (readonly number[])[]): TargetCompilation {
  return compileForArguments(fusion, sizes.map((s) => ({ kind: 'tensor' as const, sizes: [...s], strides: contiguousStrides(s), alignment: 256 })), DEFAULT_TARGET);
}

const GEMM_KINDS = new Set(['MatmulOp', 'LinearOp']);
const ATTENTION_KINDS = new Set(['SdpaFwdOp', 'SdpaBwdOp']);

interface Listed {
  kinds: Record<string, number>;
  lines: string[];
}

/** Each segment: its plan kind, its scheduler and the ops it computes; asserts GEMMs and attentions land in their own kinds. */
function listSegments(name: string, t: TargetCompilation): Listed {
  const kinds: Record<string, number> = {};
  const lines: string[] = [];
  for (const s of t.compiled.segments) {
    const group = t.segmented.groups[s.groupId];
    if (group === undefined) throw new Error(`segment ${s.groupId} has no segmentation group`);
    const ops = group.exprs.map((e) => e.kind);
    const gemms = ops.filter((k) => GEMM_KINDS.has(k)).length;
    const attention = ops.filter((k) => ATTENTION_KINDS.has(k)).length;
    if (gemms > 0) expect(s.kind, `${name} segment ${s.groupId} (${ops.join(' ')})`).toBe('libraryCall');
    if (attention > 0) expect(s.kind, `${name} segment ${s.groupId}`).toBe('attention');
    if (s.kind === 'libraryCall') expect(gemms).toBe(1);
    kinds[s.kind] = (kinds[s.kind] ?? 0) + 1;
    const counted = new Map<string, number>();
    for (const k of ops) counted.set(k, (counted.get(k) ?? 0) + 1);
    lines.push(`  ${String(s.groupId).padStart(2)} ${s.kind.padEnd(11)} ${group.schedulerType.padEnd(22)} ${[...counted].map(([k, n]) => (n > 1 ? `${k}×${n}` : k)).join(' ')}`);
  }
  return { kinds, lines };
}

function exprCount(fusion: Fusion, kinds: ReadonlySet<string>): number {
  return fusion.allExprs().filter((e) => kinds.has(e.kind)).length;
}

function report(name: string, t: TargetCompilation, listed: Listed): void {
  const dump = fusionIrSegmentsToString(t.segmented);
  const header = dump.split('\n')[0] ?? '';
  // Each boundary's reason, cut to its first clause per scheduler (the full text: tsfuser run … --explain).
  const reasons = dump
    .slice(dump.lastIndexOf('}\n') + 2)
    .trim()
    .split('\n')
    .map((l) => (l.length > 240 ? `${l.slice(0, 240)}…` : l))
    .join('\n');
  console.log(`${name}: ${header}\n  by plan kind: ${JSON.stringify(listed.kinds)}\n${listed.lines.join('\n')}\n  segment boundaries (the segmenter's reasons):\n${reasons}`);
}

describe('LLaMA block plans at the LLaMA-7B size (no GPU)', () => {
  const forwardSizes = llamaForwardWorkload().inputs.map((i) => i.sizes);
  const saved = llamaSavedShapes(c);

  it('the inference forward: 7 GEMMs as libraryCalls, one attention segment, the rest kernels', () => {
    const fusion = llamaForwardWorkload().build().fusionIr();
    const t = plan(fusion, forwardSizes);
    const listed = listSegments('forward', t);
    report('llama_block_fwd_bf16', t, listed);
    expect(exprCount(fusion, GEMM_KINDS)).toBe(7);
    expect(listed.kinds['libraryCall']).toBe(7);
    expect(listed.kinds['attention']).toBe(1);
    expect(listed.kinds['kernel'] ?? 0).toBeGreaterThan(0);
  });

  it('the training forward and the backward: 7 + 14 GEMMs as libraryCalls, one attention segment each', () => {
    const w = llamaTrainingWorkload();
    const forward = w.build().fusionIr();
    const tf = plan(forward, w.inputs.slice(0, forwardSizes.length).map((i) => i.sizes));
    const lf = listSegments('training forward', tf);
    report('llama_block_bwd_bf16 step 0 (forward with saves)', tf, lf);
    expect(lf.kinds['libraryCall']).toBe(7);
    expect(lf.kinds['attention']).toBe(1);
    // The backward declares its saved inputs contiguous: the forward's outputs must come out dense
    // (a strided view, such as v's [B, Hkv, T, E] of v_proj's output, would be refused by the input check).
    const p = tf.compiled;
    p.outputs.forEach((ref, j) => {
      const layout = ref.kind === 'buffer' ? p.buffers[ref.index]?.layout : ref.kind === 'view' ? p.views[ref.index]?.layout : undefined;
      const name = j === 0 ? 'y' : (LLAMA_SAVED[j - 1] ?? '?');
      if (layout === undefined) throw new Error(`output ${name} is an input of the fusion (${ref.kind})`);
      const dense = layout.sizes.every((s, d) => s <= 1 || layout.strides[d] === contiguousStrides(layout.sizes)[d]);
      expect(dense, `${name} strides [${layout.strides.join(', ')}] of sizes [${layout.sizes.join(', ')}]`).toBe(true);
    });

    const step = w.steps?.[0];
    if (step === undefined) throw new Error('the training workload has no backward step');
    const backward = step.build().fusionIr();
    const sizes = step.args.map((a) => ('input' in a ? (w.inputs[a.input]?.sizes ?? []) : saved[LLAMA_SAVED[a.output - 1] ?? 'rstd1'].sizes));
    const tb = plan(backward, sizes);
    const lb = listSegments('backward', tb);
    report('llama_block_bwd_bf16 step 1 (backward)', tb, lb);
    // dm, dgate·Wg, dup·Wu, do, dq·Wq, dk·Wk, dv·Wv and the seven weight grads.
    expect(exprCount(backward, GEMM_KINDS)).toBe(14);
    expect(lb.kinds['libraryCall']).toBe(14);
    expect(lb.kinds['attention']).toBe(1);
  });
});

describe('LLaMA block bench workloads', () => {
  it('are registered under the names pytorch_bench.py uses, with TFLOP/s', () => {
    const names = benchWorkloads().map((w) => w.name);
    expect(names).toContain('llama_block_fwd_bf16');
    expect(names).toContain('llama_block_bwd_bf16');
    expect(llamaForwardWorkload().flops).toBe(llamaForwardFlops(c));
    expect(llamaTrainingWorkload().flops).toBe(llamaTrainingStepFlops(c));
    // 2·tokens·(4·D·D + 3·D·ffn) GEMM flops + causal attention 2·B·H·T²·E.
    const tokens = c.batch * c.seq;
    expect(llamaForwardFlops(c)).toBe(2 * tokens * (4 * 4096 * 4096 + 3 * 4096 * 11008) + 2 * c.batch * c.heads * c.seq ** 2 * c.headDim);
  });

  it("count every step's inputs read once and outputs written once", () => {
    const shapeBytes = (sizes: readonly number[], dtype: Parameters<typeof dataTypeSize>[0]): number => sizes.reduce((a, b) => a * b, 1) * dataTypeSize(dtype);
    for (const w of [llamaForwardWorkload(), llamaTrainingWorkload()] as Workload[]) {
      const first = w.build().fusionIr();
      const firstInputs = w.inputs.slice(0, first.inputs.length);
      // Step 0: its inputs; its outputs y (shaped as x) and the saved activations.
      let bytes = firstInputs.reduce((a, i) => a + shapeBytes(i.sizes, i.dtype), 0) + shapeBytes([c.batch, c.seq, c.hidden], 'BFloat16');
      const saved = llamaSavedShapes(c);
      if (first.outputs.length > 1) bytes += LLAMA_SAVED.reduce((a, n) => a + shapeBytes(saved[n].sizes, saved[n].dtype), 0);
      expect(first.outputs.length).toBe(w.steps === undefined ? 1 : 1 + LLAMA_SAVED.length);
      for (const step of w.steps ?? []) {
        const fusion = step.build().fusionIr();
        expect(step.args.length).toBe(fusion.inputs.length);
        bytes += step.args.reduce((a, arg) => {
          if ('input' in arg) {
            const i = w.inputs[arg.input];
            if (i === undefined) throw new Error(`${w.name}: no input ${arg.input}`);
            return a + shapeBytes(i.sizes, i.dtype);
          }
          const name = LLAMA_SAVED[arg.output - 1];
          if (arg.step !== 0 || name === undefined) throw new Error(`${w.name}: argument ${JSON.stringify(arg)}`);
          return a + shapeBytes(saved[name].sizes, saved[name].dtype);
        }, 0);
        // The grads: dx shaped as x, each weight's as the weight.
        bytes += shapeBytes([c.batch, c.seq, c.hidden], 'BFloat16') + w.inputs.slice(3, first.inputs.length).reduce((a, i) => a + shapeBytes(i.sizes, i.dtype), 0);
        expect(fusion.outputs.length).toBe(10);
      }
      expect(w.bytes, w.name).toBe(bytes);
    }
  });
});
