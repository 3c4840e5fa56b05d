// Lowerings of reductions and softmax: sum / mean / amax / amin / var / std over constant dims
// (None or [] = every dim) with keepdim, unbiased or correction, and dtype; softmax, log_softmax,
// their underscore forms with half_to_float, and _softmax_backward_data.

import {
  cast, exp, logSoftmax, max, mean, min, mul, std, sub, sum, softmax, variance, type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import type { NodeArgs, StaticArgs } from './args.js';
import { dataTypeOfCode } from './dtypes.js';
import type { OpTableSection } from './op-entry.js';
import { broadcastOperands, isTensor, out } from './operands.js';
import type { JitVal } from './values.js';

/** The dims argument: None, [] → every dim (returned as []). */
function dims(args: NodeArgs, name = 'dim'): number[] {
  if (!args.has(name)) return [];
  return args.optionalIntList(name) ?? [];
}

function keepdim(args: NodeArgs): boolean {
  return args.has('keepdim') ? args.bool('keepdim') : false;
}

function optionalDtype(args: NodeArgs): DataType | null {
  if (!args.has('dtype') || args.isNone('dtype')) return null;
  const d = dataTypeOfCode(args.int('dtype'));
  return d.dtype ?? args.fail(d.error);
}

const checkDtype = (a: StaticArgs): string | null => {
  const v = a.get('dtype');
  if (v === null || v.kind === 'none') return null;
  if (v.kind !== 'int') return "argument 'dtype' is not a constant dtype";
  const d = dataTypeOfCode(Number(v.value));
  return d.error ?? null;
};

/** torch's `dtype=` on reductions and softmax: the input is cast first. */
function withDtype(x: TensorView, dtype: DataType | null): TensorView {
  return dtype === null || dtype === x.dtype ? x : cast(x, dtype);
}

/**
 * var/std's correction: `unbiased` (True → 1) or `correction` (None → 1), the aten overloads.
 */
function correction(args: NodeArgs): number {
  if (args.has('unbiased')) return args.bool('unbiased') ? 1 : 0;
  if (args.has('correction') && !args.isNone('correction')) {
    const c = args.number('correction');
    return Number.isInteger(c) ? c : args.fail(`correction ${c} is not an integer (only integral corrections are supported)`);
  }
  return 1;
}

function lowerVarStd(args: NodeArgs, fn: typeof variance): JitVal[] {
  const x = args.tensor('self');
  return out(fn(x, dims(args), correction(args), keepdim(args)));
}

function statSchemas(name: string): string[] {
  return [
    `aten::${name}.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor`,
    `aten::${name}.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor`,
    `aten::${name}(Tensor self, bool unbiased=True) -> Tensor`,
  ];
}

/** softmax along `dim`; `dtype=` casts the input first, half_to_float computes and returns Float. */
function lowerSoftmax(args: NodeArgs, fn: typeof softmax): JitVal[] {
  let x = args.tensor('self');
  if (args.has('half_to_float') && args.bool('half_to_float')) x = withDtype(x, 'Float');
  x = withDtype(x, optionalDtype(args));
  return out(fn(x, args.int('dim')));
}

/** grad_input = output · (grad − Σ_dim grad·output), in the input dtype (aten::_softmax_backward_data). */
function lowerSoftmaxBackward(args: NodeArgs): JitVal[] {
  const [g, y] = broadcastOperands([args.tensor('grad_output'), args.tensor('output')]);
  if (g === undefined || y === undefined || !isTensor(g) || !isTensor(y)) return args.fail('expected two tensors');
  const d = args.int('dim');
  // Half/BFloat16 compute in Float (as aten's kernel accumulates) and are cast at the end.
  const [gf, yf] = [upcast(g), upcast(y)];
  const result = mul(yf, sub(gf, sum(mul(gf, yf), [d], true)));
  return out(withDtype(result, args.has('input_dtype') ? inputDtype(args) : g.dtype));
}

/** grad_input = grad − exp(output) · Σ_dim grad (aten::_log_softmax_backward_data). */
function lowerLogSoftmaxBackward(args: NodeArgs): JitVal[] {
  const [g, y] = broadcastOperands([args.tensor('grad_output'), args.tensor('output')]);
  if (g === undefined || y === undefined || !isTensor(g) || !isTensor(y)) return args.fail('expected two tensors');
  const [gf, yf] = [upcast(g), upcast(y)];
  const result = sub(gf, mul(exp(yf), sum(gf, [args.int('dim')], true)));
  return out(withDtype(result, inputDtype(args)));
}

function upcast(t: TensorView): TensorView {
  return t.dtype === 'Half' || t.dtype === 'BFloat16' ? cast(t, 'Float') : t;
}

function inputDtype(args: NodeArgs): DataType {
  const d = dataTypeOfCode(args.int('input_dtype'));
  return d.dtype ?? args.fail(d.error);
}

const REDUCTION_CONSTANTS = ['dim', 'keepdim', 'dtype', 'unbiased', 'correction', 'half_to_float', 'input_dtype'];

export const REDUCTION_OPS: OpTableSection = {
  'aten::sum': {
    schemas: [
      'aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor',
      'aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor',
    ],
    constants: REDUCTION_CONSTANTS,
    check: checkDtype,
    lower: (args) => {
      const dtype = optionalDtype(args);
      return out(sum(withDtype(args.tensor('self'), dtype), dims(args), keepdim(args)));
    },
  },
  'aten::mean': {
    schemas: [
      'aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor',
      'aten::mean(Tensor self, *, ScalarType? dtype=None) -> Tensor',
    ],
    constants: REDUCTION_CONSTANTS,
    check: checkDtype,
    lower: (args) => out(mean(withDtype(args.tensor('self'), optionalDtype(args)), dims(args), keepdim(args))),
  },
  'aten::amax': {
    schemas: ['aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor'],
    constants: REDUCTION_CONSTANTS,
    lower: (args) => out(max(args.tensor('self'), dims(args), keepdim(args))),
  },
  'aten::amin': {
    schemas: ['aten::amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor'],
    constants: REDUCTION_CONSTANTS,
    lower: (args) => out(min(args.tensor('self'), dims(args), keepdim(args))),
  },
  'aten::var': { schemas: statSchemas('var'), constants: REDUCTION_CONSTANTS, lower: (args) => lowerVarStd(args, variance) },
  'aten::std': { schemas: statSchemas('std'), constants: REDUCTION_CONSTANTS, lower: (args) => lowerVarStd(args, std) },
  'aten::softmax': {
    schemas: ['aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor'],
    constants: REDUCTION_CONSTANTS,
    check: checkDtype,
    lower: (args) => lowerSoftmax(args, softmax),
  },
  'aten::log_softmax': {
    schemas: ['aten::log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor'],
    constants: REDUCTION_CONSTANTS,
    check: checkDtype,
    lower: (args) => lowerSoftmax(args, logSoftmax),
  },
  'aten::_softmax': {
    schemas: ['aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor'],
    constants: REDUCTION_CONSTANTS,
    lower: (args) => lowerSoftmax(args, softmax),
  },
  'aten::_log_softmax': {
    schemas: ['aten::_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor'],
    constants: REDUCTION_CONSTANTS,
    lower: (args) => lowerSoftmax(args, logSoftmax),
  },
  'aten::_log_softmax_backward_data': {
    schemas: ['aten::_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor'],
    constants: REDUCTION_CONSTANTS,
    lower: lowerLogSoftmaxBackward,
  },
  'aten::_softmax_backward_data': {
    schemas: ['aten::_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor'],
    constants: REDUCTION_CONSTANTS,
    lower: lowerSoftmaxBackward,
  },
};
