// tsfuser-export-kernels (gpu/export-kernels.ts): what tools/bench/kernel_ab.py needs to launch
// tsfuser's normalization kernels from Python — full source with a C-linkage kernel, launch
// dimensions, and a parameter layout naming the fusion input or output behind each Tensor.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportKernels } from '../gpu/export-kernels.js';

describe('export-kernels', () => {
  it('layer_norm f32: the heuristic and each override, inputs then the output in the parameter layout', () => {
    const out = exportKernels(['layer_norm_f32'], { B2: { batches: 2 } });
    expect(out.map((e) => e.kernel.variant)).toEqual(['heuristic', 'B2']);
    for (const { kernel, source } of out) {
      expect(source).toContain(`extern "C" __global__ void __launch_bounds__(${kernel.block[0] * kernel.block[1]}) ${kernel.kernel}(`);
      expect(kernel.params.map((p) => `${p.role}${p.position}:${p.rank}`)).toEqual(['input0:2', 'input1:1', 'input2:1', 'output0:2']);
      // Int32 indexing: pointer + 2·rank ints, padded to 8; consecutive and aligned.
      expect(kernel.params.map((p) => p.size)).toEqual([24, 16, 16, 24]);
      kernel.params.forEach((p, i) => expect(p.offset).toBe(i === 0 ? 0 : (kernel.params[i - 1]?.offset ?? 0) + (kernel.params[i - 1]?.size ?? 0)));
      expect(kernel.argBytes).toBe(80);
      expect(kernel.grid[0] * kernel.block[1]).toBe(16384);
      expect(kernel.inputs).toEqual([{ sizes: [16384, 4096], dtype: 'Float' }, { sizes: [4096], dtype: 'Float' }, { sizes: [4096], dtype: 'Float' }]);
    }
    expect(out[0]?.kernel.block).toEqual([256, 1, 1]);
    expect(out[1]?.kernel.block).toEqual([512, 1, 1]);
    // The heuristic hoists Float row parameters; bf16 keeps the loads in place.
    expect(out[0]?.source).toMatch(/T\d+_h\[/);
    expect(exportKernels(['layer_norm_bf16'], {})[0]?.source).not.toMatch(/T\d+_h\[/);
  });

  it('exports other workloads as the default registry schedules them, the heuristic only (variants are for normalizations)', () => {
    const e = exportKernels(['pad_bf16', 'transpose_f32'], { big: { batches: 4 } });
    expect(e.map((x) => `${x.kernel.workload}/${x.kernel.variant}`)).toEqual(['pad_bf16/heuristic', 'transpose_f32/heuristic']);
    const pad = e[0]?.kernel;
    expect(pad?.params.map((p) => `${p.role}${p.position}`)).toEqual(['input0', 'output0']);
    expect(pad?.inputs).toEqual([{ sizes: [8192, 4096], dtype: 'BFloat16' }]);
    expect(e[1]?.source).toContain('__shared__');
  });

  it('pointwise variants apply to pointwise-scheduled workloads only', () => {
    const e = exportKernels(['pad_bf16', 'transpose_f32', 'softmax_f32'], { b128: { pointwise: { bdimx: 128, unroll: 1 } }, big: { batches: 4 } });
    expect(e.map((x) => `${x.kernel.workload}/${x.kernel.variant}`)).toEqual(['softmax_f32/heuristic', 'softmax_f32/big', 'pad_bf16/heuristic', 'pad_bf16/b128', 'transpose_f32/heuristic']);
    expect(e.find((x) => x.kernel.variant === 'b128')?.kernel.block).toEqual([128, 1, 1]);
  });

  it('exports a workload at other sizes (`name@d0xd1x…`): input 0 takes them, size-1 dims of the others stay', () => {
    const e = exportKernels(['rope_bf16@16x2048x32x128', 'rope_bf16'], {});
    expect(e.map((x) => x.kernel.workload)).toEqual(['rope_bf16@16x2048x32x128', 'rope_bf16']);
    expect(e[0]?.kernel.inputs.map((i) => i.sizes)).toEqual([[16, 2048, 32, 128], [1, 2048, 1, 128], [1, 2048, 1, 128]]);
    expect(e[1]?.kernel.inputs.map((i) => i.sizes)).toEqual([[8, 4096, 32, 128], [1, 4096, 1, 128], [1, 4096, 1, 128]]);
    expect(e[0]?.kernel.file).toBe('rope_bf16@16x2048x32x128__heuristic.cu');
    expect(() => exportKernels(['rope_bf16@16x2048'], {})).toThrow(/rope_bf16@16x2048: give 4 positive sizes joined by x/);
  });

  it('marks positive inputs (variances) so kernel_ab.py fills them as pytorch_bench.py does', () => {
    const bn = exportKernels(['bn_add_relu'], {})[0]?.kernel;
    expect(bn?.inputs.flatMap((i, k) => (i.positive === true ? [k] : []))).toEqual([5, 9]);
  });

  it('names unknown workloads and bad variant names', () => {
    expect(() => exportKernels(['layer_norm_f64'], {})).toThrow(/unknown workload\(s\) layer_norm_f64; known: .*softmax_f32/);
    expect(() => exportKernels(['softmax_f32'], { 'a b': {} })).toThrow(/variant name "a b"/);
  });

  const python = ['python3', 'python'].find((p) => {
    try {
      execFileSync(p, ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  });
  const script = join(__dirname, '..', '..', '..', 'tools', 'bench', 'kernel_ab.py');
  it.skipIf(python === undefined || !existsSync(script))('kernel_ab.py is valid Python', () => {
    execFileSync(python as string, ['-c', 'import ast, sys; ast.parse(open(sys.argv[1]).read())', script]);
  });
});
