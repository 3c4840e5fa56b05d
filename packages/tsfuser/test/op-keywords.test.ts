// The keywords nvFuser's python printer (python_frontend/fusion_record.h) writes for each op, checked
// against tsfuser's op table: every printed keyword must name a parameter, and one printed line
// per op, in nvFuser's exact form, must import and run on the reference backend.
import { describe, expect, it } from 'vitest';
import { DataType, FusionCache, FusionDefinition, Tensor, allOps, importPythonDefinition, opByPythonName } from '../src/index.js';

/** nvFuser's printer: op → keywords it emits (the other arguments print positionally). */
const PRINTED_KEYWORDS: Record<string, readonly string[]> = {
  slice: ['start_indices', 'end_indices', 'strides', 'manual_normalization'],
  reshape: ['new_shape'],
  broadcast_in_dim: ['shape', 'broadcast_dims'],
  expand: ['shape'],
  squeeze: ['dims', 'squeeze_expanded'],
  broadcast: ['is_broadcast_dim'],
  permute: ['dims'],
  stride_order: ['stride_order'],
  cat: ['dim', 'manual_padding'],
  sum: ['dims', 'keepdim', 'dtype'],
  prod: ['dims', 'keepdim', 'dtype'],
  max: ['dims', 'keepdim', 'dtype'],
  min: ['dims', 'keepdim', 'dtype'],
  var: ['dims', 'correction', 'keepdim'],
  var_mean: ['dims', 'correction', 'keepdim'],
  welford: ['dims'],
  batch_norm: ['training', 'channels_last'],
  size: ['dim'],
  cast: ['dtype'],
  full: ['shape', 'fill_value', 'dtype'],
  iota: ['dtype'],
  pad: [],
  // python_translate.cpp's LinearOp / ScaledMmaOp / SdpaFwdOp / SdpaBwdOp handlers.
  linear: ['bias'],
  matmul: [],
  grouped_mm: [],
  scaled_mm: ['alpha', 'bias', 'beta', 'dtype', 'output_block_scale_size', 'output_block_scale_dtype', 'output_gamma'],
  sdpfa_fwd: ['bias', 'mask', 'dropout_p', 'is_causal', 'scale'],
  sdpfa_bwd: ['dropout_p', 'is_causal', 'philox_seed', 'philox_offset', 'scale'],
  set: [],
  segment_set: [],
  shape: [],
  where: [],
  lerp: [],
  clamp: [],
  threshold: [],
  addcmul: [],
  // RandomDistOpRecord: shape, then rng_seed/rng_offset when given, then dtype; rand_like,
  // randn_like and triu are plain records (positional arguments).
  uniform: ['shape', 'rng_seed', 'rng_offset', 'dtype'],
  normal: ['shape', 'rng_seed', 'rng_offset', 'dtype'],
  rand_like: [],
  randn_like: [],
  triu: [],
  // IndexSelectOpRecord … ScatterOpRecord print `, dim=`; the others are plain records.
  index_select: ['dim'],
  select: ['dim'],
  gather: ['dim'],
  take_along_axis: ['dim'],
  scatter: ['dim'],
  index_put_accumulate: [],
  embedding_fwd: [],
  // python_translate.cpp's ScanOp / ArgsortOp / TopKOp handlers (defaults omitted).
  cumsum: ['dim'],
  cumprod: ['dim'],
  cummin: ['dim'],
  cummax: ['dim'],
  argsort: ['dim', 'descending', 'stable'],
  topk: ['dim', 'largest', 'sorted'],
};

/** One line per op as nvFuser prints it, over T0 = a static 2×3 Float input; `out` is added as output. */
const PRINTED_LINES: Record<string, { lines: string[]; out: string }> = {
  cumsum: { lines: ['T1 = fd.ops.cumsum(T0, dim=1)'], out: 'T1' },
  cummax: { lines: ['T1 = fd.ops.cummax(T0, dim=0)'], out: 'T1' },
  argsort: { lines: ['T1 = fd.ops.argsort(T0, dim=1, descending=True)'], out: 'T1' },
  topk: { lines: ['S1 = fd.define_scalar(2, dtype=DataType.Int)', 'T1, T2 = fd.ops.topk(T0, S1, dim=1, sorted=True)'], out: 'T2' },
  slice: { lines: ['T1 = fd.ops.slice(T0, start_indices=[0, 1], end_indices=[2, 3], strides=[1, 1], manual_normalization=0)'], out: 'T1' },
  reshape: { lines: ['S1 = fd.define_scalar(3.00000, dtype=DataType.Double)', 'T1 = fd.ops.reshape(T0, new_shape=[S1, 2])'], out: 'T1' },
  broadcast_in_dim: { lines: ['T1 = fd.ops.broadcast_in_dim(T0, shape=[4, 2, 3], broadcast_dims=[1, 2])'], out: 'T1' },
  expand: { lines: ['T1 = fd.ops.broadcast_in_dim(T0, shape=[2, 1, 3], broadcast_dims=[0, 2])', 'T2 = fd.ops.expand(T1, shape=[2, 4, 3])'], out: 'T2' },
  squeeze: { lines: ['T1 = fd.ops.broadcast(T0, is_broadcast_dim=[False, True, False])', 'T2 = fd.ops.squeeze(T1, dims=[1], squeeze_expanded=False)'], out: 'T2' },
  permute: { lines: ['T1 = fd.ops.permute(T0, dims=[1, 0])'], out: 'T1' },
  stride_order: { lines: ['T1 = fd.ops.stride_order(T0, stride_order=[0, 1])'], out: 'T1' },
  cat: { lines: ['T1 = fd.ops.cat([T0, T0], dim=0, manual_padding=0)'], out: 'T1' },
  sum: { lines: ['T1 = fd.ops.sum(T0, dims=[1], keepdim=False, dtype=DataType.Null)'], out: 'T1' },
  prod: { lines: ['T1 = fd.ops.prod(T0, dims=[0, 1], keepdim=True, dtype=DataType.Double)'], out: 'T1' },
  max: { lines: ['T1 = fd.ops.max(T0, dims=[0], keepdim=False, dtype=DataType.Null)'], out: 'T1' },
  min: { lines: ['T1 = fd.ops.min(T0, dims=[0], keepdim=False, dtype=DataType.Null)'], out: 'T1' },
  var: { lines: ['T1 = fd.ops.var(T0, dims=[1], correction=1, keepdim=False)'], out: 'T1' },
  var_mean: { lines: ['T1, T2 = fd.ops.var_mean(T0, dims=[1], correction=0, keepdim=True)'], out: 'T2' },
  welford: { lines: ['T1, T2, T3 = fd.ops.welford(T0, dims=[1])'], out: 'T2' },
  batch_norm: {
    lines: ['S1 = fd.define_scalar(0.100000, dtype=DataType.Double)', 'S2 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)', 'T3, T4, T5 = fd.ops.batch_norm(T0, None, None, None, None, S1, S2, training=True, channels_last=False)'],
    out: 'T3',
  },
  size: { lines: ['S1 = fd.ops.size(T0, dim=0)', 'T2 = fd.ops.mul(T0, S1)'], out: 'T2' },
  cast: { lines: ['T1 = fd.ops.cast(T0, dtype=DataType.Half)'], out: 'T1' },
  full: { lines: ['S1 = fd.define_scalar(2.00000, dtype=DataType.Double)', 'T2 = fd.ops.full(shape=[2, 3], fill_value=S1, dtype=DataType.Float)'], out: 'T2' },
  iota: {
    lines: ['S1 = fd.define_scalar(6, dtype=DataType.Int)', 'S2 = fd.define_scalar(0, dtype=DataType.Int)', 'S3 = fd.define_scalar(1, dtype=DataType.Int)', 'T4 = fd.ops.iota(S1, S2, S3, dtype=DataType.Int)'],
    out: 'T4',
  },
  pad: { lines: ['S1 = fd.define_scalar(0.00000, dtype=DataType.Double)', 'T2 = fd.ops.pad(T0, [1, 1, 0, 0], S1)'], out: 'T2' },
  select: { lines: ['S1 = fd.define_scalar(1, dtype=DataType.Int)', 'T2 = fd.ops.select(T0, S1, dim=1)'], out: 'T2' },
  index_select: {
    lines: ['S1 = fd.define_scalar(2, dtype=DataType.Int)', 'S2 = fd.define_scalar(0, dtype=DataType.Int)', 'S3 = fd.define_scalar(1, dtype=DataType.Int)', 'T4 = fd.ops.iota(S1, S2, S3, dtype=DataType.Int)', 'T5 = fd.ops.index_select(T0, T4, dim=1)'],
    out: 'T5',
  },
  embedding_fwd: {
    lines: ['S1 = fd.define_scalar(2, dtype=DataType.Int)', 'S2 = fd.define_scalar(0, dtype=DataType.Int)', 'S3 = fd.define_scalar(1, dtype=DataType.Int)', 'T4 = fd.ops.iota(S1, S2, S3, dtype=DataType.Int)', 'T5 = fd.ops.embedding_fwd(T4, T0, None, None, None, None, None)'],
    out: 'T5',
  },
  define_vector: { lines: ['S1 = fd.define_scalar(3, dtype=DataType.Int)', 'V2 = fd.define_vector([S1, 2], dtype=DataType.Int)', 'T3 = fd.ops.reshape(T0, new_shape=V2)'], out: 'T3' },
};

function definitionText(lines: readonly string[], out: string, outputKeywords = ''): string {
  return [
    'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :',
    '    T0 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])',
    ...lines.map((l) => `    ${l}`),
    `    fd.add_output(${out}${outputKeywords})`,
    '',
  ].join('\n');
}

const input = (): Tensor => Tensor.from(new Float32Array([1, 2, 3, 4, 5, 6]), [2, 3], DataType.Float);

describe("nvFuser's printed keywords", () => {
  it('every keyword nvFuser prints names a parameter of the op', () => {
    const missing: string[] = [];
    for (const [python, keywords] of Object.entries(PRINTED_KEYWORDS)) {
      const spec = opByPythonName(python);
      if (spec === undefined) {
        missing.push(`${python}: no such op`);
        continue;
      }
      for (const k of keywords) {
        if (!spec.params.some((p) => p.python === k || (p.aliases ?? []).includes(k))) missing.push(`${python}(${k}=)`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every op with keyword parameters in the table is listed (a new op must be added here)', () => {
    const keywordOps = allOps().filter((s) => s.params.some((p) => !['tensor', 'operand', 'tensors'].includes(p.kind)));
    const unlisted = keywordOps.map((s) => s.python).filter((p) => PRINTED_KEYWORDS[p] === undefined);
    // tsfuser-only ops (no nvFuser python binding) and the reductions' sibling `mean`.
    expect(unlisted.sort()).toEqual(
      ['gelu', 'gelu_backward', 'layer_norm', 'log_softmax', 'mean', 'rms_norm', 'softmax', 'std', 'transpose'].sort(),
    );
  });

  for (const [name, sample] of Object.entries(PRINTED_LINES)) {
    it(`imports and runs nvFuser's printed ${name}`, async () => {
      const fd = importPythonDefinition(definitionText(sample.lines, sample.out), { cache: new FusionCache() });
      const outs = await fd.execute([input()], { backend: 'reference' });
      expect(outs).toHaveLength(1);
    });
  }

  it("imports fd.add_output in the forms nvFuser's OutputRecord prints: the alias input positional, stride_order= as a keyword", async () => {
    const aliased = importPythonDefinition(definitionText(['T1 = fd.ops.neg(T0)'], 'T1', ', T0'), { cache: new FusionCache() });
    const x = input();
    expect(await aliased.execute([x], { backend: 'reference' })).toEqual([]);
    expect(x.toArray()).toEqual([-1, -2, -3, -4, -5, -6]);
    const ordered = importPythonDefinition(definitionText(['T1 = fd.ops.neg(T0)'], 'T1', ', stride_order=[0, 1]'), { cache: new FusionCache() });
    const [out] = await ordered.execute([input()], { backend: 'reference' });
    expect(out?.strides).toEqual([1, 2]);
    expect(ordered.printPython()).toContain('fd.add_output(T1, stride_order=[0, 1])');
    expect(aliased.printPython()).toContain('fd.add_output(T1, T0)');
  });

  it('runs add_output(t, stride_order=…) and fd.ops.stride_order with the strides they ask for', async () => {
    const fd = FusionDefinition.build((f) => {
      const t0 = f.defineTensor({ shape: [-1, -1, -1], contiguity: true });
      f.addOutput(f.ops.neg(t0), { strideOrder: [0, 2, 1] });
      f.addOutput(f.ops.strideOrder(f.ops.abs(t0), [1, 2, 0]));
    }, { cache: new FusionCache() });
    const values = Array.from({ length: 24 }, (_, i) => i - 12);
    const [a, b] = await fd.execute([Tensor.from(new Float32Array(values), [2, 3, 4], DataType.Float)], { backend: 'reference' });
    // [0, 2, 1]: dim 1 outermost, then dim 2, dim 0 innermost.
    expect(a?.strides).toEqual([1, 8, 2]);
    expect(a?.toArray()).toEqual(values.map((v) => -v));
    // [1, 2, 0]: dim 1 outermost, dim 0, dim 2 innermost.
    expect(b?.strides).toEqual([4, 8, 1]);
    expect(b?.toArray()).toEqual(values.map((v) => Math.abs(v)));
    expect(fd.fusionIr().outputs.every((o) => o.kind === 'tensorView' && o.domain.allocation !== null)).toBe(true);
  });
});
