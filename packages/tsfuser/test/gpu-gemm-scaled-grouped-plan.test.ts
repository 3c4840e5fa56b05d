// The scaled_mm, grouped_mm and backward (DGELU, BGRADA / BGRADB) cases of the runtime-gemm-fusions GPU entry
// (gpu-suites/runtime/gemm-scaled-grouped-cases.ts, gemm-backward-cases.ts) planned and run through FusionExecutorCache on
// the fake H100 before the GPU run: each becomes GEMM segments (with generated kernels around the
// GEMM where the case has a cast / relu), and every cuBLASLt call it makes passes the device
// layer's validateGemm (fp8: TN, scales on fp8 operands, bias dtype; grouped: one call per
// non-empty group, sub-matrices in place). The GPU entry checks the values against the reference.
import { Tensor, validateGemm, type GemmCall, type GemmDescriptor } from '@tsfuser/device';
import { contiguousStrides, HostTensor, type DataType, type Fusion } from '@tsfuser/fusion-ir';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { defaultSchedulerRegistry, MatmulScheduler } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { fakeDevice } from './fake-device.js';

/** The suite's Case (gpu-suites/runtime/gemm-fusion-cases.ts), as far as this test reads it. */
interface Case {
  name: string;
  dtype: DataType;
  fusion: Fusion;
  inputs: { sizes: number[]; strides?: number[]; dtype?: DataType; values?: number[] }[];
  backwardEpilogues?: boolean;
}

// Imported at run time: the GPU suites live outside this package's sources (tsconfig rootDir).
const suite = (file: string): string => new URL(`../../gpu-suites/runtime/${file}`, import.meta.url).href;
const scaledGrouped = (await import(suite('gemm-scaled-grouped-cases.ts'))) as { scaledMmCases(): Case[]; groupedMmCases(): Case[] };
const backward = (await import(suite('gemm-backward-cases.ts'))) as { backwardCases(): Case[] };
const cases: Case[] = [...scaledGrouped.scaledMmCases(), ...scaledGrouped.groupedMmCases(), ...backward.backwardCases()];
const dense = (sizes: readonly number[]): number[] => contiguousStrides(sizes);

describe('runtime-gemm-fusions scaled_mm / grouped_mm / backward cases on the fake H100', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const fake = fakeDevice();
    const calls: GemmDescriptor[] = [];
    const offsets = c.inputs.find((s) => s.dtype === 'Int32')?.values ?? [];
    const gemm = {
      matmul: (desc: GemmDescriptor): GemmCall => {
        const shape = validateGemm(desc);
        calls.push(desc);
        return { cachedAlgorithm: false, workspaceBytes: 0, ...shape };
      },
      readInt32: (_pointer: bigint, count: number): Int32Array => Int32Array.from(offsets.slice(0, count)),
      zero: (): void => undefined,
    };
    const inputs = c.inputs.map((spec) => {
      const strides = spec.strides ?? dense(spec.sizes);
      const span = spec.sizes.reduce((acc, s, i) => acc + (s - 1) * (strides[i] as number), 0) + 1;
      const storage = Tensor.fromHost(HostTensor.fromValues(spec.dtype ?? c.dtype, [span], spec.values ?? new Array<number>(span).fill(0.5))).toDevice(fake.device);
      return storage.asStrided(spec.sizes, strides);
    });
    const registry = c.backwardEpilogues === true ? defaultSchedulerRegistry().replacing(new MatmulScheduler({ backwardEpilogues: true })) : defaultSchedulerRegistry();
    const cache = new FusionExecutorCache(c.fusion, fake.device, { gemm, poisonOutputs: true, registry });
    cache.runFusion(inputs).forEach((t) => t.dispose());
    const kinds = cache.lastPlan()?.segments.map((s) => s.kind) ?? [];
    expect(kinds).toContain('libraryCall');
    if (c.name.includes('relu after')) expect(kinds).toEqual(['kernel', 'libraryCall', 'kernel']);
    const groups = offsets.map((end, g) => end - (offsets[g - 1] ?? 0)).filter((n) => n > 0).length;
    if (c.name.startsWith('dgrad') || c.name.startsWith('wgrad') || c.name.startsWith('GPT-MLP backward')) {
      // every backward case runs twice: with cuBLASLt's epilogues (opted in) and by default
      expect(c.name.endsWith('(epilogue)') || c.name.endsWith('(epilogues)') || c.name.includes('(plain GEMM')).toBe(true);
    }
    if (c.backwardEpilogues !== true && (c.name.startsWith('dgrad') || c.name.startsWith('wgrad') || c.name.startsWith('GPT-MLP backward'))) {
      // the default: plain GEMMs, and the gelu backward / bias gradients in generated kernels
      expect(calls.every((d) => (d.epilogue?.kind ?? 'DEFAULT') === 'DEFAULT'), c.name).toBe(true);
      expect(kinds).toContain('kernel');
    } else if (c.name.startsWith('dgrad')) {
      expect(calls.map((d) => d.epilogue?.kind)).toEqual([c.name.includes('BGRAD') ? 'DGELU_BGRAD' : 'DGELU']);
    } else if (c.name.startsWith('wgrad') && c.name.includes('BGRADA t1 ')) {
      // K = 1: no BGRADA algorithm on the H200, so a plain GEMM and the sum in a kernel of its own
      expect(calls.map((d) => d.epilogue?.kind ?? 'DEFAULT')).toEqual(['DEFAULT']);
      expect(kinds).toContain('kernel');
    } else if (c.name.startsWith('wgrad')) {
      // the permute, the GEMM and the bias gradient are one call: no view segment, no reduction kernel
      expect(calls.map((d) => d.epilogue?.kind)).toEqual([c.name.includes('BGRADA') ? 'BGRADA' : 'BGRADB']);
      expect(kinds).toEqual(['libraryCall']);
    } else if (c.name.startsWith('GPT-MLP backward')) {
      expect(calls.map((d) => d.epilogue?.kind ?? 'DEFAULT').sort()).toEqual(['BGRADA', 'DEFAULT', 'DEFAULT', 'DGELU_BGRAD']);
      expect(kinds.every((k) => k === 'libraryCall')).toBe(true);
    } else {
      expect(calls).toHaveLength(offsets.length === 0 ? 1 : groups);
    }
  });
});
