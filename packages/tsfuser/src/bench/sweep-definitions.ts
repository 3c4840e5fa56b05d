// The fusion definition of each sweep family, in nvFuser's python_definition form (decomposed,
// fp32 math, only the family's PyTorch outputs leave the fusion) — the same text the fixed-size
// bench uses for softmax and layer_norm, and tools/bench/sweep_pytorch.py's math on the PyTorch
// side. Sizes are symbolic: one definition serves every point of a family and dtype.

import { FusionDefinition } from '../definition/fusion-definition.js';
import { importPythonDefinition } from '../python/import-definition.js';
import { ATTENTION_QUERIES, pointBytes, pointName, ROPE_HEAD_SIZE, SWEEP_FAMILIES, type SweepDtype, type SweepFamily, type SweepPoint } from './sweep-points.js';
import { columnSumDef, geluBackwardDef, reductionEpilogueDef, softmaxBackwardOuterDef, softmaxOuterDef, rmsNormBackwardDef, scaleBiasReluDef, softmaxBackwardDef } from './sweep-more-definitions.js';
import { embeddingDef, SWEEP_EMBEDDING_VOCAB, transposeDef } from './sweep-movement-definitions.js';
import { causalBias, causalMasked, huggingfaceAttnBackwardDef, huggingfaceAttnDef, nanogptAttnBackwardDef, nanogptAttnDef } from './sweep-attention-definitions.js';
import { catDef, ropeBackwardDef, ropeDef } from './sweep-resize-definitions.js';
import { batchNormBackwardDef, batchNormDef, groupNormBackwardDef, groupNormDef, instanceNormBackwardDef, instanceNormDef, SWEEP_GROUP_NORM_CHANNELS, SWEEP_GROUP_NORM_GROUPS, SWEEP_INSTANCE_NORM_CHANNELS } from './sweep-batch-norm-definitions.js';
import { dropoutLayerNormBackwardDef, dropoutLayerNormDef, dropoutRmsNormBackwardDef, dropoutRmsNormDef, SWEEP_DROPOUT_OFFSET, SWEEP_DROPOUT_SEED } from './sweep-dropout-definitions.js';
import { broadcastAddInnerDef, crossEntropyDef, geluBackwardReductionDef, rmsNormAddDef, scaleBiasReluBackwardDef, siluMulBackwardDef } from './sweep-glue-definitions.js';
import { layerNormBackwardDef, layerNormDef, softmaxDef, type Workload, type WorkloadInput } from './workloads.js';

function rmsNormDef(dtype: string): string {
  return `def rms_norm(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${dtype}, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.${dtype}, is_cpu=False)
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.sum(fd.ops.mul(T2, T2), dims=[1], keepdim=False, dtype=DataType.Null)
    S4 = fd.ops.size(T0, dim=1)
    T5 = fd.ops.truediv(T3, S4)
    S6 = fd.define_scalar(1.00000e-06, dtype=DataType.Double)
    T7 = fd.ops.rsqrt(fd.ops.add(fd.ops.broadcast_in_dim(T5, shape=T0.shape(), broadcast_dims=[0]), S6))
    T8 = fd.ops.cast(fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[1]), dtype=DataType.Float)
    T9 = fd.ops.mul(fd.ops.mul(T2, T7), T8)
    fd.add_output(fd.ops.cast(T9, dtype=DataType.${dtype}))
`;
}

function rowSumDef(dtype: string): string {
  return `def row_sum(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${dtype}, is_cpu=False)
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.sum(T1, dims=[1], keepdim=False, dtype=DataType.Null)
    fd.add_output(fd.ops.cast(T2, dtype=DataType.${dtype}))
`;
}

function pointwiseDef(name: string, dtype: string, inputs: string, body: string): string {
  return `def ${name}(fd : FusionDefinition) -> None :
${inputs}${body}`;
}

const full = (t: string, dtype: string): string => `    ${t} = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${dtype}, is_cpu=False)\n`;

function geluDef(dtype: string): string {
  return pointwiseDef('gelu', dtype, full('T0', dtype), `    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    S2 = fd.define_scalar(0.707106781186547524, dtype=DataType.Double)
    T3 = fd.ops.erf(fd.ops.mul(T1, S2))
    S4 = fd.define_scalar(1.00000, dtype=DataType.Double)
    S5 = fd.define_scalar(0.500000, dtype=DataType.Double)
    T6 = fd.ops.mul(fd.ops.mul(T1, S5), fd.ops.add(T3, S4))
    fd.add_output(fd.ops.cast(T6, dtype=DataType.${dtype}))
`);
}

function siluMulDef(dtype: string): string {
  return pointwiseDef('silu_mul', dtype, full('T0', dtype) + full('T1', dtype), `    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    T4 = fd.ops.mul(fd.ops.silu(T2), T3)
    fd.add_output(fd.ops.cast(T4, dtype=DataType.${dtype}))
`);
}

function mulDef(dtype: string): string {
  return pointwiseDef('mul', dtype, full('T0', dtype) + full('T1', dtype), `    T2 = fd.ops.mul(fd.ops.cast(T0, dtype=DataType.Float), fd.ops.cast(T1, dtype=DataType.Float))
    fd.add_output(fd.ops.cast(T2, dtype=DataType.${dtype}))
`);
}

function biasAddDef(dtype: string): string {
  const bias = `    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.${dtype}, is_cpu=False)\n`;
  return pointwiseDef('bias_add', dtype, full('T0', dtype) + bias, `    T2 = fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[1])
    T3 = fd.ops.add(fd.ops.cast(T0, dtype=DataType.Float), fd.ops.cast(T2, dtype=DataType.Float))
    fd.add_output(fd.ops.cast(T3, dtype=DataType.${dtype}))
`);
}

/** The python definition text of a family in a dtype (`hidden`: layer_norm_bwd's 1/H constant). */
export function sweepDefinitionText(family: SweepFamily, dtype: SweepDtype, hidden = 0): string {
  switch (family) {
    case 'softmax':
      return softmaxDef(dtype);
    case 'layer_norm':
      return layerNormDef(dtype);
    case 'rms_norm':
      return rmsNormDef(dtype);
    case 'row_sum':
      return rowSumDef(dtype);
    case 'layer_norm_bwd':
      return layerNormBackwardDef(dtype, hidden);
    case 'gelu':
      return geluDef(dtype);
    case 'silu_mul':
      return siluMulDef(dtype);
    case 'mul':
      return mulDef(dtype);
    case 'bias_add':
      return biasAddDef(dtype);
    case 'softmax_bwd':
      return softmaxBackwardDef(dtype);
    case 'rms_norm_bwd':
      return rmsNormBackwardDef(dtype, hidden);
    case 'gelu_bwd':
      return geluBackwardDef(dtype);
    case 'scale_bias_relu':
      return scaleBiasReluDef(dtype);
    case 'reduction_epilogue':
      return reductionEpilogueDef(dtype);
    case 'dropout_layer_norm':
      return dropoutLayerNormDef(dtype);
    case 'dropout_layer_norm_bwd':
      return dropoutLayerNormBackwardDef(dtype);
    case 'dropout_rms_norm':
      return dropoutRmsNormDef(dtype);
    case 'dropout_rms_norm_bwd':
      return dropoutRmsNormBackwardDef(dtype);
    case 'silu_mul_bwd':
      return siluMulBackwardDef(dtype);
    case 'scale_bias_relu_bwd':
      return scaleBiasReluBackwardDef(dtype);
    case 'gelu_bwd_reduction_outer':
      return geluBackwardReductionDef(dtype, 0);
    case 'gelu_bwd_reduction_inner':
      return geluBackwardReductionDef(dtype, 1);
    case 'broadcast_add_inner':
      return broadcastAddInnerDef(dtype);
    case 'rms_norm_add':
      return rmsNormAddDef(dtype);
    case 'batch_norm':
      return batchNormDef(dtype);
    case 'batch_norm_bwd':
      return batchNormBackwardDef(dtype);
    case 'cross_entropy':
      return crossEntropyDef(dtype);
    case 'transpose':
      return transposeDef(dtype);
    case 'embedding':
      return embeddingDef(dtype);
    case 'instance_norm':
      return instanceNormDef(dtype);
    case 'instance_norm_bwd':
      return instanceNormBackwardDef(dtype);
    case 'group_norm':
      return groupNormDef(dtype);
    case 'group_norm_bwd':
      return groupNormBackwardDef(dtype);
    case 'rope':
      return ropeDef(dtype);
    case 'rope_bwd':
      return ropeBackwardDef(dtype);
    case 'col_sum':
      return columnSumDef(dtype);
    case 'softmax_outer':
      return softmaxOuterDef(dtype);
    case 'softmax_bwd_outer':
      return softmaxBackwardOuterDef(dtype);
    case 'cat':
      return catDef(dtype);
    case 'nanogpt_attn':
      return nanogptAttnDef(dtype);
    case 'nanogpt_attn_bwd':
      return nanogptAttnBackwardDef(dtype);
    case 'huggingface_attn':
      return huggingfaceAttnDef(dtype);
    case 'huggingface_attn_bwd':
      return huggingfaceAttnBackwardDef(dtype);
    default: {
      const unreachable: never = family;
      throw new Error(`unknown family ${String(unreachable)}`);
    }
  }
}

/** Whether a family's definition depends on the hidden size (a 1/H constant), not only its dtype. */
export function definitionDependsOnHidden(family: SweepFamily): boolean {
  return family === 'layer_norm_bwd' || family === 'rms_norm_bwd';
}

export function sweepDefinition(family: SweepFamily, dtype: SweepDtype, hidden = 0): FusionDefinition {
  return importPythonDefinition(sweepDefinitionText(family, dtype, hidden));
}

/**
 * The inputs of a point, in definition order (x, then per-row or per-column parameters). Bool
 * inputs are keep masks (true with probability 1 − p); Int scalars are the dropout seed and offset.
 */
export function sweepInputs(family: SweepFamily, dtype: SweepDtype, rows: number, hidden: number): WorkloadInput[] {
  const x: WorkloadInput = { sizes: [rows, hidden], dtype };
  const column: WorkloadInput = { sizes: [hidden], dtype };
  const perRow: WorkloadInput = { sizes: [rows], dtype };
  const mask: WorkloadInput = { sizes: [rows, hidden], dtype: 'Bool' };
  const stat = (positive: boolean): WorkloadInput => ({ sizes: [rows], dtype: 'Float', ...(positive ? { positive } : {}) });
  const rng: WorkloadInput[] = [
    { sizes: [], dtype: 'Int', scalar: SWEEP_DROPOUT_SEED },
    { sizes: [], dtype: 'Int', scalar: SWEEP_DROPOUT_OFFSET },
  ];
  switch (family) {
    case 'dropout_layer_norm':
      return [x, { ...x }, column, { ...column }, ...rng];
    case 'dropout_layer_norm_bwd':
      return [mask, stat(false), stat(true), x, column, { ...x }, { ...x }];
    case 'dropout_rms_norm':
      return [x, { ...x }, column, ...rng];
    case 'dropout_rms_norm_bwd':
      return [x, { ...x }, mask, stat(true), { ...x }, column];
    case 'silu_mul_bwd':
      return [x, { ...x }, { ...x }];
    case 'scale_bias_relu_bwd':
      return [column, mask, x];
    case 'gelu_bwd_reduction_outer':
    case 'gelu_bwd_reduction_inner':
      return [x, { ...x }, column];
    case 'broadcast_add_inner':
      return [perRow, x];
    case 'rms_norm_add':
      return [x, column, { ...x }];
    case 'batch_norm':
      return [x, column, { ...column }];
    case 'batch_norm_bwd':
      return [x, { ...x }, column, { sizes: [hidden], dtype: 'Float' }, { sizes: [hidden], dtype: 'Float', positive: true }];
    case 'cross_entropy':
      return [x, { sizes: [rows], dtype: 'Int', indexBound: hidden }];
    case 'transpose':
      return [x];
    case 'embedding':
      return [{ sizes: [rows], dtype: 'Int', indexBound: SWEEP_EMBEDDING_VOCAB }, { sizes: [SWEEP_EMBEDDING_VOCAB, hidden], dtype }];
    case 'instance_norm':
    case 'instance_norm_bwd': {
      // [N, C, H·W] with N·C = rows (sweepPoints keeps only rows that C divides).
      const c = SWEEP_INSTANCE_NORM_CHANNELS;
      const x3: WorkloadInput = { sizes: [Math.floor(rows / c), c, hidden], dtype };
      const channel: WorkloadInput = { sizes: [c], dtype };
      const stats = (positive: boolean): WorkloadInput => ({ sizes: [Math.floor(rows / c), c], dtype: 'Float', ...(positive ? { positive } : {}) });
      return family === 'instance_norm' ? [x3, channel, { ...channel }] : [x3, { ...x3 }, channel, stats(false), stats(true)];
    }
    case 'group_norm': {
      // [N, G, C/G, H·W] with N·C = rows; weight and bias as their [G, C/G] views.
      const [c, g] = [SWEEP_GROUP_NORM_CHANNELS, SWEEP_GROUP_NORM_GROUPS];
      const channels: WorkloadInput = { sizes: [g, c / g], dtype };
      return [{ sizes: [Math.floor(rows / c), g, c / g, hidden], dtype }, channels, { ...channels }];
    }
    case 'group_norm_bwd': {
      // x and grad_out [N, G, C/G, H·W]; weight [G, C/G]; mean and invstd f32 [N, G].
      const [c, g] = [SWEEP_GROUP_NORM_CHANNELS, SWEEP_GROUP_NORM_GROUPS];
      const x4: WorkloadInput = { sizes: [Math.floor(rows / c), g, c / g, hidden], dtype };
      const stats = (positive: boolean): WorkloadInput => ({ sizes: [Math.floor(rows / c), g], dtype: 'Float', ...(positive ? { positive } : {}) });
      return [x4, { ...x4 }, { sizes: [g, c / g], dtype }, stats(false), stats(true)];
    }
    case 'rope':
    case 'rope_bwd': {
      // x (grad_out) [B, H, S, D] = [1, hidden / 128, rows, 128]; cos and sin [S, D].
      const table: WorkloadInput = { sizes: [rows, ROPE_HEAD_SIZE], dtype };
      return [{ sizes: [1, Math.floor(hidden / ROPE_HEAD_SIZE), rows, ROPE_HEAD_SIZE], dtype }, table, { ...table }];
    }
    case 'cat': {
      const left = Math.floor(hidden / 2);
      return [{ sizes: [rows, left], dtype }, { sizes: [rows, hidden - left], dtype }];
    }
    case 'nanogpt_attn':
    case 'nanogpt_attn_bwd':
    case 'huggingface_attn':
    case 'huggingface_attn_bwd': {
      // Scores [B, H, S_q, S_k] = [1, rows / 16, 16, hidden] (HuggingFace's backward: [B·H, S_q, S_k]).
      const heads = Math.floor(rows / ATTENTION_QUERIES);
      const s4: WorkloadInput = { sizes: [1, heads, ATTENTION_QUERIES, hidden], dtype };
      const s3: WorkloadInput = { sizes: [heads, ATTENTION_QUERIES, hidden], dtype };
      if (family === 'nanogpt_attn') return [s4, { sizes: [1, 1, ATTENTION_QUERIES, hidden], dtype: 'Float', values: () => causalBias(hidden) }, ...rng];
      if (family === 'nanogpt_attn_bwd') return [s4, { ...s4 }, { ...s4, dtype: 'Bool' }, { sizes: [1, 1, ATTENTION_QUERIES, hidden], dtype: 'Bool', values: () => causalMasked(hidden) }];
      if (family === 'huggingface_attn') return [s4, { ...s4 }, ...rng];
      return [s3, { ...s3 }, { ...s3, dtype: 'Bool' }];
    }
    case 'softmax':
    case 'row_sum':
    case 'gelu':
    case 'col_sum':
    case 'softmax_outer':
      return [x];
    case 'silu_mul':
    case 'mul':
      return [x, { ...x }];
    case 'layer_norm':
      return [x, column, { ...column }];
    case 'rms_norm':
    case 'bias_add':
      return [x, column];
    case 'softmax_bwd':
    case 'gelu_bwd':
    case 'softmax_bwd_outer':
      return [x, { ...x }];
    case 'scale_bias_relu':
      return [x, column, { ...column }];
    case 'reduction_epilogue':
      return [x, { sizes: [rows], dtype }];
    case 'rms_norm_bwd':
      return [x, { ...x }, { sizes: [rows], dtype: 'Float', positive: true }, column];
    case 'layer_norm_bwd':
      return [x, { ...x }, { sizes: [rows], dtype: 'Float' }, { sizes: [rows], dtype: 'Float', positive: true }, column];
    default: {
      const unreachable: never = family;
      throw new Error(`unknown family ${String(unreachable)}`);
    }
  }
}

/** A sweep point as a bench Workload (tuning experiments take either). */
export function sweepPointWorkload(p: SweepPoint): Workload {
  return {
    name: pointName(p),
    description: `${p.family} over the last dim, ${p.rows}x${p.hidden} ${p.dtype}`,
    build: () => sweepDefinition(p.family, p.dtype, p.hidden),
    inputs: sweepInputs(p.family, p.dtype, p.rows, p.hidden),
    bytes: pointBytes(p),
  };
}

/** `layer_norm_f32_8192x16384` → its point, or undefined when the name is not a sweep point's. */
export function parsePointName(name: string): SweepPoint | undefined {
  const m = /^([a-z_]+)_(f32|bf16)_(\d+)x(\d+)$/.exec(name);
  if (m === null || !(SWEEP_FAMILIES as readonly string[]).includes(m[1] as string)) return undefined;
  return { family: m[1] as SweepFamily, dtype: m[2] === 'f32' ? 'Float' : 'BFloat16', rows: Number(m[3]), hidden: Number(m[4]) };
}
