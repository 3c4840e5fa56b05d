// `fd.ops` entries for the GEMM and attention ops, with nvFuser's python signatures
// (python_direct/ops.cpp bindMatmulOps / bindSdpaOps): `matmul(arg1, arg2)`,
// `scaled_mm(mat1, mat2, scale1, scale2, alpha=None, bias=None, beta=None, dtype=BFloat16,
// output_block_scale_size=0, output_block_scale_dtype=BFloat16, output_gamma=False)`,
// `grouped_mm(mat1, mat2, offsets)`, `sdpfa_fwd(query, key, value, bias=None, mask=None,
// dropout_p=None, is_causal=None, scale=None)` → (output, logsumexp, philox_seed, philox_offset)
// and `sdpfa_bwd(grad_output, query, key, value, output, logsumexp, dropout_p, is_causal,
// philox_seed, philox_offset, scale)` → (grad_query, grad_key, grad_value). (`linear` is in
// ops-structural.ts.) scaled_mm returns its one tensor: the block-scale outputs nvFuser returns
// as None are refused by the op when asked for.

import * as ir from '@tsfuser/fusion-ir';
import type { DataType } from '@tsfuser/fusion-ir';
import type { ScalarHandle, TensorHandle } from './handles.js';
import { op, type ParamSpec } from './op-spec.js';

type OptScalar = ScalarHandle | number | boolean | null;

const tensor = (name: string, python = name, aliases?: readonly string[]): ParamSpec => ({ name, python, kind: 'tensor', ...(aliases ? { aliases } : {}) });
const optTensor = (name: string, python: string): ParamSpec => ({ name, python, kind: 'optTensor', default: null });
const optScalar = (name: string, python: string, required = false): ParamSpec => (required ? { name, python, kind: 'optScalar' } : { name, python, kind: 'optScalar', default: null });

export const matmulOps = {
  matmul: op<(arg1: TensorHandle, arg2: TensorHandle) => TensorHandle>({
    name: 'matmul',
    python: 'matmul',
    params: [tensor('arg1'), tensor('arg2')],
    output: 'tensor',
    apply: (_f, a) => [ir.matmul(a.tensor(0), a.tensor(1))],
  }),
  scaledMm: op<
    (
      mat1: TensorHandle,
      mat2: TensorHandle,
      scale1: TensorHandle,
      scale2: TensorHandle,
      alpha?: TensorHandle | null,
      bias?: TensorHandle | null,
      beta?: TensorHandle | null,
      dtype?: DataType | null,
      outputBlockScaleSize?: number,
      outputBlockScaleDtype?: DataType | null,
      outputGamma?: boolean,
    ) => TensorHandle
  >({
    name: 'scaledMm',
    python: 'scaled_mm',
    params: [
      tensor('mat1'),
      tensor('mat2'),
      tensor('scale1'),
      tensor('scale2'),
      optTensor('alpha', 'alpha'),
      optTensor('bias', 'bias'),
      optTensor('beta', 'beta'),
      { name: 'dtype', python: 'dtype', kind: 'dtype', default: 'BFloat16' },
      { name: 'outputBlockScaleSize', python: 'output_block_scale_size', kind: 'int', default: 0 },
      { name: 'outputBlockScaleDtype', python: 'output_block_scale_dtype', kind: 'dtype', default: 'BFloat16' },
      { name: 'outputGamma', python: 'output_gamma', kind: 'bool', default: false },
    ],
    output: 'tensor',
    apply: (_f, a) => [
      ir.scaledMm(a.tensor(0), a.tensor(1), a.tensor(2), a.tensor(3), {
        alpha: a.optTensor(4),
        bias: a.optTensor(5),
        beta: a.optTensor(6),
        dtype: a.dtype(7) ?? 'BFloat16',
        outputBlockScaleSize: a.int(8),
        outputGamma: a.bool(10),
      }),
    ],
  }),
  groupedMm: op<(mat1: TensorHandle, mat2: TensorHandle, offsets: TensorHandle) => TensorHandle>({
    name: 'groupedMm',
    python: 'grouped_mm',
    params: [tensor('mat1'), tensor('mat2'), tensor('offsets')],
    output: 'tensor',
    apply: (_f, a) => [ir.groupedMm(a.tensor(0), a.tensor(1), a.tensor(2))],
  }),
  sdpfaFwd: op<
    (
      query: TensorHandle,
      key: TensorHandle,
      value: TensorHandle,
      bias?: TensorHandle | null,
      mask?: TensorHandle | null,
      dropoutP?: OptScalar,
      isCausal?: OptScalar,
      scale?: OptScalar,
    ) => [TensorHandle, TensorHandle, TensorHandle, TensorHandle]
  >({
    name: 'sdpfaFwd',
    python: 'sdpfa_fwd',
    params: [tensor('query'), tensor('key'), tensor('value'), optTensor('bias', 'bias'), optTensor('mask', 'mask'), optScalar('dropoutP', 'dropout_p'), optScalar('isCausal', 'is_causal'), optScalar('scale', 'scale')],
    output: 4,
    outputNames: ['output', 'logsumexp', 'philox_seed', 'philox_offset'],
    apply: (_f, a) => {
      const r = ir.sdpfaFwd(a.tensor(0), a.tensor(1), a.tensor(2), { bias: a.optTensor(3), mask: a.optTensor(4), dropoutP: a.optScalar(5), isCausal: a.optScalar(6), scale: a.optScalar(7) });
      return [r.output, r.logsumexp, r.philoxSeed, r.philoxOffset];
    },
  }),
  sdpfaBwd: op<
    (
      gradOutput: TensorHandle,
      query: TensorHandle,
      key: TensorHandle,
      value: TensorHandle,
      output: TensorHandle,
      logsumexp: TensorHandle,
      dropoutP: OptScalar,
      isCausal: OptScalar,
      philoxSeed: TensorHandle,
      philoxOffset: TensorHandle,
      scale: OptScalar,
    ) => [TensorHandle, TensorHandle, TensorHandle]
  >({
    name: 'sdpfaBwd',
    python: 'sdpfa_bwd',
    params: [
      tensor('gradOutput', 'grad_output'),
      tensor('query'),
      tensor('key'),
      tensor('value'),
      tensor('output'),
      tensor('logsumexp', 'logsumexp', ['log_sumexp']),
      optScalar('dropoutP', 'dropout_p', true),
      optScalar('isCausal', 'is_causal', true),
      tensor('philoxSeed', 'philox_seed'),
      tensor('philoxOffset', 'philox_offset'),
      optScalar('scale', 'scale', true),
    ],
    output: 3,
    outputNames: ['grad_query', 'grad_key', 'grad_value'],
    apply: (_f, a) => {
      const r = ir.sdpfaBwd(a.tensor(0), a.tensor(1), a.tensor(2), a.tensor(3), a.tensor(4), a.tensor(5), a.optScalar(6), a.optScalar(7), a.tensor(8), a.tensor(9), a.optScalar(10));
      return [r.gradQuery, r.gradKey, r.gradValue];
    },
  }),
};
