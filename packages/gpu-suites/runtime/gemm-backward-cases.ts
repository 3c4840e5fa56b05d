// The backward cases of the runtime-gemm-fusions GPU entry (device-free, as gemm-fusion-cases.ts):
// the dgrad GEMM of an MLP's gelu(tanh) with cuBLASLt's DGELU epilogue (the saved pre-activation
// read as aux) and DGELU_BGRAD (also the bias gradient: the sum of the result's rows), at odd
// token counts, Float / BFloat16 / Half; the weight-gradient GEMM dW = matmul(permute(dY), G)
// with db = sum(dY, 0) as cuBLASLt's BGRADA (dY read transposed in place, the sum of op(A) over
// K; BFloat16 / Half sum a Float cast and cast back, as Thunder writes it) and matmul(A, B) with
// sum(B, 0) as BGRADB; and the whole GPT-MLP backward (grads of the input, both weights and
// both biases: DGELU_BGRAD, BGRADA for dW2 and db2, two plain GEMMs reading transposed operands
// in place, no generated kernel) as one FusionExecutorCache call.

import { cast, Fusion, geluBackward, matmul, permute, sum, type TensorView } from '@tsfuser/fusion-ir';
import { input, type Case, type GemmDtype } from './gemm-fusion-cases.js';

/**
 * The reference rounds each of geluBackward's ~15 Float ops to f32 and cuBLASLt evaluates the
 * derivative its own way: in Float they differ by up to 6e-6 relative (H200, 2026-12-02), 1.3e-5
 * after the next GEMM; the reduced dtypes' rounding covers it.
 */
const SLACK: Record<GemmDtype, number> = { Float: 3e-5, BFloat16: 0, Half: 0 };

function dgradCase(dtype: GemmDtype, t: number, h: number, f: number, biasGradient: boolean): Case {
  const fusion = new Fusion();
  const dy = input(fusion, { sizes: [t, h] }, dtype, false);
  const w2 = input(fusion, { sizes: [h, f] }, dtype, false);
  const pre = input(fusion, { sizes: [t, f] }, dtype, false);
  const d = geluBackward(matmul(dy, w2), pre, 'tanh');
  fusion.addOutput(d);
  if (biasGradient) fusion.addOutput(sum(d, [0]));
  const name = `dgrad ${dtype} ${biasGradient ? 'DGELU_BGRAD' : 'DGELU'} t${t} h${h} f${f}`;
  // the bias gradient sums t rows: the tolerance grows with t too
  // the bias gradient sums t rows whose D values differ by that much each: √t of it
  const slack = biasGradient ? [SLACK[dtype], SLACK[dtype] * Math.sqrt(t)] : [SLACK[dtype]];
  return { name, dtype, k: biasGradient ? h + t : h, fusion, inputs: [{ sizes: [t, h] }, { sizes: [h, f] }, { sizes: [t, f] }], slack };
}

/**
 * BGRADA: dW = matmul(permute(dY), G), db = sum(dY, 0) — dY [t, h], G [t, f]; BGRADB: D =
 * matmul(A, B), db = sum(B, 0) — A [h, t], B [t, f]. K = t either way.
 */
function wgradCase(dtype: GemmDtype, t: number, h: number, f: number, epilogue: 'BGRADA' | 'BGRADB'): Case {
  const fusion = new Fusion();
  const specs = epilogue === 'BGRADA' ? [[t, h], [t, f]] : [[h, t], [t, f]];
  const [p, q] = specs.map((sizes) => input(fusion, { sizes }, dtype, false)) as [TensorView, TensorView];
  const biasGrad = (v: TensorView): TensorView => (dtype === 'Float' ? sum(v, [0]) : cast(sum(cast(v, 'Float'), [0]), dtype));
  if (epilogue === 'BGRADA') {
    fusion.addOutput(matmul(permute(p, [1, 0]), q));
    fusion.addOutput(biasGrad(p));
  } else {
    fusion.addOutput(matmul(p, q));
    fusion.addOutput(biasGrad(q));
  }
  return { name: `wgrad ${dtype} ${epilogue} t${t} h${h} f${f}`, dtype, k: t, fusion, inputs: specs.map((sizes) => ({ sizes })) };
}

function mlpBackwardCase(dtype: GemmDtype, t: number, h: number, f: number): Case {
  const fusion = new Fusion();
  const specs = [[t, h], [f, h], [h, f], [t, f], [t, f], [t, h]];
  const [x, w1, w2, pre, g, dy] = specs.map((sizes) => input(fusion, { sizes }, dtype, false)) as [ReturnType<typeof input>, ReturnType<typeof input>, ReturnType<typeof input>, ReturnType<typeof input>, ReturnType<typeof input>, ReturnType<typeof input>];
  const dPre = geluBackward(matmul(dy, w2), pre, 'tanh');
  fusion.addOutput(matmul(dPre, w1));
  fusion.addOutput(matmul(permute(dPre, [1, 0]), x));
  fusion.addOutput(sum(dPre, [0]));
  fusion.addOutput(matmul(permute(dy, [1, 0]), g));
  fusion.addOutput(sum(dy, [0]));
  // outputs dX, dW1, db1 (a sum of t rows of dPre), dW2 and db2 (one BGRADA call)
  const s = SLACK[dtype];
  return { name: `GPT-MLP backward ${dtype} tokens ${t} hidden ${h} ffn ${f}`, dtype, k: t + f, fusion, inputs: specs.map((sizes) => ({ sizes })), slack: [s, s * Math.sqrt(t), s * Math.sqrt(t), s, s] };
}

export function backwardCases(): Case[] {
  const out: Case[] = [];
  for (const dtype of ['Float', 'BFloat16', 'Half'] as const) {
    for (const [t, h, f] of [[1, 8, 8], [129, 64, 136], [4095, 32, 64]] as const) {
      // each with cuBLASLt's backward epilogues (opted in) and with the default (plain GEMMs and kernels)
      for (const cases of [dgradCase(dtype, t, h, f, false), dgradCase(dtype, t, h, f, true), wgradCase(dtype, t, h, f, 'BGRADA'), wgradCase(dtype, t, h, f, 'BGRADB')]) {
        out.push({ ...cases, name: `${cases.name} (epilogue)`, backwardEpilogues: true }, { ...cases, name: `${cases.name} (plain GEMM + kernels)` });
      }
    }
    const mlp = mlpBackwardCase(dtype, 257, 64, 256);
    out.push({ ...mlp, name: `${mlp.name} (epilogues)`, backwardEpilogues: true }, { ...mlp, name: `${mlp.name} (plain GEMMs + kernels)` });
  }
  return out;
}
