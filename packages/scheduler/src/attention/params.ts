// The parameters of an attention segment (one sdpfa_fwd or sdpfa_bwd, run as tsfuser's generated
// flash-attention kernels): the kernel variant (dtype, head dim, causal, bias / mask kind,
// dropout), the problem sizes N / H / Hkv / L / S / E, the scale and dropout probability, the
// philox seed and offset (constants or integral scalar inputs), and every tensor's segment
// position with the layout the plan was made for. Also their printing for the
// `scheduler_params` dump and `--explain`.
// Invariant: the numbers here are the call — the runtime computes no size, stride or flag of
// its own; it only checks the buffers still have these layouts. `variant` has exactly the
// fields of @tsfuser/codegen's AttentionVariant (the scheduler does not depend on codegen).

/** The kernel variant (structurally codegen's AttentionVariant). */
export interface AttentionKernelVariant {
  dtype: 'BFloat16' | 'Half';
  headDim: number;
  causal: boolean;
  bias: 'none' | 'additive' | 'bool';
  biasDtype?: 'BFloat16' | 'Half' | 'Float';
  dropout: boolean;
}

/** A rank-4 tensor of the segment (an input or output position) and its layout in elements. */
export interface AttentionOperand {
  /** Position among the segment fusion's inputs (operands) or outputs (results). */
  position: number;
  sizes: readonly [number, number, number, number];
  strides: readonly [number, number, number, number];
}

/**
 * The softmax scale: a constant of the definition (1/√E when sdpfa has none), or a floating
 * scalar input of the segment (its position), read at every call: the kernels take the scale as
 * a parameter, so its value selects no kernel and a plan serves every value, as nvFuser's
 * SdpaFwdOp / SdpaBwdOp read their scale input at each evaluate.
 */
export type AttentionScale = { constant: number } | { input: number };

/** The philox seed or offset: a constant of the definition, or an integral scalar input's value. */
export type AttentionRngValue = { constant: bigint } | { input: number; value: bigint };

export interface AttentionForwardTensors {
  query: AttentionOperand;
  key: AttentionOperand;
  value: AttentionOperand;
  /** The additive bias or the bool mask, broadcast dims with stride 0. */
  bias: AttentionOperand | null;
  /** Output positions; null where the segment does not output that value (a scratch buffer is used). */
  output: number | null;
  logsumexp: number | null;
  philoxSeed: number | null;
  philoxOffset: number | null;
}

export interface AttentionBackwardTensors {
  gradOutput: AttentionOperand;
  query: AttentionOperand;
  key: AttentionOperand;
  value: AttentionOperand;
  output: AttentionOperand;
  /** Float [N, H, L], contiguous (the kernels index it densely). */
  logsumexp: number;
  /** The forward's philox_seed tensor (UInt64 [2]); read back only when there is dropout. */
  philoxSeed: number;
  gradQuery: number | null;
  gradKey: number | null;
  gradValue: number | null;
}

interface AttentionParamsBase {
  schedulerType: 'attention';
  tag: string;
  variant: AttentionKernelVariant;
  batch: number;
  heads: number;
  kvHeads: number;
  queryLength: number;
  keyLength: number;
  headDim: number;
  scale: AttentionScale;
  dropoutP: number;
}

export type AttentionParams =
  | (AttentionParamsBase & { op: 'sdpfa_fwd'; tensors: AttentionForwardTensors; seed: AttentionRngValue; offset: AttentionRngValue })
  | (AttentionParamsBase & { op: 'sdpfa_bwd'; tensors: AttentionBackwardTensors });

function operandLine(name: string, o: AttentionOperand): string {
  return `  ${name}: input ${o.position}, sizes [${o.sizes.join(', ')}] strides [${o.strides.join(', ')}]`;
}

function rngText(v: AttentionRngValue): string {
  return 'constant' in v ? `${v.constant} (constant)` : `${v.value} (input ${v.input})`;
}

/** A result's output position; `unused` says what happens when the segment does not output it. */
const out = (name: string, position: number | null, unused = 'not an output (a scratch buffer)'): string => `  ${name}: ${position === null ? unused : `output ${position}`}`;

/** The `scheduler_params` dump of an attention segment. */
export function attentionParamsToString(p: AttentionParams): string {
  const v = p.variant;
  const lines: string[] = ['', '===== Attention Parameters ========'];
  if (p.tag !== '') lines.push(`Tag: ${p.tag}`);
  lines.push(`Generated flash-attention kernels: ${p.op === 'sdpfa_fwd' ? 'forward' : 'backward (preprocess, main, dQ convert)'}`);
  lines.push(`Problem: N ${p.batch} H ${p.heads} Hkv ${p.kvHeads} L ${p.queryLength} S ${p.keyLength} E ${p.headDim}`);
  const bias = v.bias === 'none' ? 'none' : v.bias === 'bool' ? 'bool mask' : `additive ${v.biasDtype ?? '?'}`;
  lines.push(`Variant: ${v.dtype}, causal ${v.causal ? 'true (top-left aligned)' : 'false'}, bias ${bias}, dropout ${v.dropout ? `p ${p.dropoutP}` : 'none'}`);
  lines.push(`Scale: ${'constant' in p.scale ? p.scale.constant : `input ${p.scale.input} (a runtime scalar, read at each call: a kernel parameter)`}`);
  lines.push('Tensors:');
  if (p.op === 'sdpfa_fwd') {
    const t = p.tensors;
    lines.push(operandLine('query', t.query), operandLine('key', t.key), operandLine('value', t.value));
    if (t.bias !== null) lines.push(operandLine(v.bias === 'bool' ? 'mask' : 'bias', t.bias));
    lines.push(out('output', t.output), out('logsumexp', t.logsumexp), out('philox_seed', t.philoxSeed, 'not an output (not written)'), out('philox_offset', t.philoxOffset, 'not an output (not written)'));
    lines.push(`Philox: seed ${rngText(p.seed)}, offset ${rngText(p.offset)}`);
  } else {
    const t = p.tensors;
    lines.push(operandLine('grad_output', t.gradOutput), operandLine('query', t.query), operandLine('key', t.key), operandLine('value', t.value), operandLine('output', t.output));
    lines.push(`  logsumexp: input ${t.logsumexp}`, `  philox_seed: input ${t.philoxSeed}${v.dropout ? ' (read back for the dropout mask)' : ' (unused: no dropout)'}`);
    lines.push(out('grad_query', t.gradQuery), out('grad_key', t.gradKey), out('grad_value', t.gradValue));
  }
  lines.push('====================================');
  return `${lines.join('\n')}\n`;
}
