// The scaled_mm and grouped_mm cases of the runtime-gemm-fusions GPU entry (device-free, as
// gemm-fusion-cases.ts): scaled_mm with per-tensor scales (e4m3 × e4m3, e4m3 × e5m2, e5m2 × e4m3;
// BFloat16 / Half / Float outputs, and fp8 outputs (e4m3; e5m2 with an e5m2 operand); with its bias; mat1 row-major and mat2 column-major, as
// cuBLASLt's fp8 path and torch._scaled_mm need), a bf16 → fp8 cast before it and a relu after
// it (generated kernels around the GEMM segment); grouped_mm 3d × 3d (one batched call) and with
// offsets cutting M (2d × 3d), N (3d × 2d) and K (2d × 2d), including an empty group and rows /
// columns after the last offset, and a transposed operand. Inputs carry their own dtype and, for
// scales and offsets, their values; `dtype` is the output's (the tolerance's).

import { cast, Fusion, groupedMm, makeTensor, relu, scaledMm, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { input, type Case } from './gemm-fusion-cases.js';

type Fp8 = 'Float8_e4m3fn' | 'Float8_e5m2';

function scalar(f: Fusion): TensorView {
  const tv = makeTensor(f, { shape: [], dtype: 'Float' });
  f.addInput(tv);
  return tv;
}

interface ScaledSpec {
  m: number;
  k: number;
  n: number;
  a: Fp8;
  b: Fp8;
  out: Extract<DataType, 'Float' | 'BFloat16' | 'Half'> | Fp8;
  bias: boolean;
  /** A bf16 mat1 cast to fp8 in a kernel first, a relu in a kernel after. */
  around: boolean;
}

function scaledCase(s: ScaledSpec): Case {
  const f = new Fusion();
  const aIn = input(f, { sizes: [s.m, s.k] }, s.around ? 'BFloat16' : s.a, false);
  const b = input(f, { sizes: [s.k, s.n], strides: [1, s.k] }, s.b, false);
  const sa = scalar(f);
  const sb = scalar(f);
  const biasDtype = s.out === 'Half' ? 'Half' : 'BFloat16';
  const bias = s.bias ? input(f, { sizes: [s.n] }, biasDtype, false) : null;
  const a = s.around ? cast(aIn, s.a) : aIn;
  const y = scaledMm(a, b, sa, sb, { bias, dtype: s.out });
  f.addOutput(s.around ? relu(y) : y);
  const inputs: Case['inputs'] = [
    { sizes: [s.m, s.k], dtype: s.around ? 'BFloat16' : s.a },
    { sizes: [s.k, s.n], strides: [1, s.k], dtype: s.b },
    { sizes: [], dtype: 'Float', values: [0.75] },
    { sizes: [], dtype: 'Float', values: [1.5] },
  ];
  if (s.bias) inputs.push({ sizes: [s.n], dtype: biasDtype });
  const name = `scaled_mm ${s.a}×${s.b}→${s.out} m${s.m} n${s.n} k${s.k}${s.bias ? ' +bias' : ''}${s.around ? ' (cast before, relu after)' : ''}`;
  // Hopper's fp8 MMA accumulates with fewer bits than f32: on the H200 a Float output was off by
  // exactly scale1·scale2·2⁻¹² (2.7e-4) at K 128, whatever the output's size
  return { name, dtype: s.out, k: s.k, fusion: f, inputs, slack: 2e-3 };
}

export function scaledMmCases(): Case[] {
  const specs: ScaledSpec[] = [];
  for (const [m, k, n] of [[1, 16, 16], [7, 32, 48], [129, 4096, 128], [4095, 64, 16]] as const) {
    specs.push({ m, k, n, a: 'Float8_e4m3fn', b: 'Float8_e4m3fn', out: 'BFloat16', bias: false, around: false });
    specs.push({ m, k, n, a: 'Float8_e4m3fn', b: 'Float8_e4m3fn', out: 'BFloat16', bias: true, around: false });
  }
  specs.push({ m: 33, k: 128, n: 64, a: 'Float8_e4m3fn', b: 'Float8_e5m2', out: 'Float', bias: false, around: false });
  specs.push({ m: 33, k: 128, n: 64, a: 'Float8_e5m2', b: 'Float8_e4m3fn', out: 'Half', bias: true, around: false });
  specs.push({ m: 129, k: 256, n: 64, a: 'Float8_e4m3fn', b: 'Float8_e4m3fn', out: 'BFloat16', bias: true, around: true });
  // fp8 outputs (the device's GemmLibrary gives D its own C and a unit D scale: fp8-output.ts);
  // cuBLASLt writes e5m2 only when an operand is e5m2
  specs.push({ m: 16, k: 16, n: 16, a: 'Float8_e4m3fn', b: 'Float8_e4m3fn', out: 'Float8_e4m3fn', bias: false, around: false });
  specs.push({ m: 7, k: 32, n: 48, a: 'Float8_e4m3fn', b: 'Float8_e4m3fn', out: 'Float8_e4m3fn', bias: true, around: false });
  specs.push({ m: 4095, k: 64, n: 32, a: 'Float8_e4m3fn', b: 'Float8_e4m3fn', out: 'Float8_e4m3fn', bias: false, around: false });
  specs.push({ m: 33, k: 128, n: 64, a: 'Float8_e4m3fn', b: 'Float8_e5m2', out: 'Float8_e5m2', bias: false, around: false });
  specs.push({ m: 129, k: 256, n: 64, a: 'Float8_e5m2', b: 'Float8_e4m3fn', out: 'Float8_e4m3fn', bias: true, around: true });
  return specs.map(scaledCase);
}

type GroupedDtype = Extract<DataType, 'Float' | 'BFloat16' | 'Half'>;

function groupedCase(name: string, dtype: GroupedDtype, k: number, a: Case['inputs'][number], b: Case['inputs'][number], offsets: number[] | null): Case {
  const f = new Fusion();
  const ta = input(f, a, dtype, false);
  const tb = input(f, b, dtype, false);
  const to = offsets === null ? null : input(f, { sizes: [offsets.length] }, 'Int32', false);
  f.addOutput(groupedMm(ta, tb, to));
  const inputs: Case['inputs'] = [a, b];
  if (offsets !== null) inputs.push({ sizes: [offsets.length], dtype: 'Int32', values: offsets });
  return { name: `grouped_mm ${dtype} ${name}`, dtype, k, fusion: f, inputs };
}

export function groupedMmCases(): Case[] {
  const out: Case[] = [];
  for (const dtype of ['Float', 'BFloat16', 'Half'] as const) {
    out.push(groupedCase('3d×3d g4 m7 n129 k64', dtype, 64, { sizes: [4, 7, 64] }, { sizes: [4, 64, 129] }, null));
    out.push(groupedCase('2d×3d (M cut) g4 m129 n48 k64, an empty group, 9 rows after the last', dtype, 64, { sizes: [129, 64] }, { sizes: [4, 64, 48] }, [40, 40, 100, 120]));
    out.push(groupedCase('2d×3d (M cut), mat2 transposed per group', dtype, 32, { sizes: [64, 32] }, { sizes: [3, 32, 16], strides: [512, 1, 32] }, [10, 50, 64]));
    out.push(groupedCase('3d×2d (N cut) g3 m33 n96 k32, 6 columns after the last', dtype, 32, { sizes: [3, 33, 32] }, { sizes: [32, 96] }, [16, 64, 90]));
    out.push(groupedCase('2d×2d (K cut) g3 m17 n24 k4095, an empty group', dtype, 4095, { sizes: [17, 4095] }, { sizes: [4095, 24] }, [1000, 1000, 4095]));
  }
  return out;
}
