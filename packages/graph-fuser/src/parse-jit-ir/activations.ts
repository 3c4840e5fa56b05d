// Lowerings of activations and their backward ops (gelu, silu, the *_backward formulas of
// PyTorch's derivatives.yaml that fusion-ir implements) and dtype casts (dropout: random.ts)
// (aten::to variants, type_as, _to_copy, the autocast casts), softplus. String and bool arguments
// that select behaviour (approximate, train, dtype, the autocast flags) must be compile-time
// constants.

import {
  cast, gelu, geluBackward, set, sigmoidBackward, silu, siluBackward, softplus, tanhBackward, thresholdBackward,
  type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import type { NodeArgs, StaticArgs } from './args.js';
import { dataTypeOfCode } from './dtypes.js';
import type { JitVal } from './values.js';
import type { OpTableSection } from './op-entry.js';
import { broadcastOperands, isTensor, out } from './operands.js';

function approximation(args: NodeArgs): 'none' | 'tanh' {
  const a = args.has('approximate') ? args.str('approximate') : 'none';
  if (a !== 'none' && a !== 'tanh') return args.fail(`approximate "${a}" is not "none" or "tanh"`);
  return a;
}

const checkApproximate = (a: StaticArgs): string | null => {
  const s = a.str('approximate');
  return s === null || s === 'none' || s === 'tanh' ? null : `approximate "${s}" is not "none" or "tanh"`;
};

/** Two same-shaped tensors (grad and input/output of a backward op), broadcast against each other. */
function pair(args: NodeArgs, a: string, b: string): [TensorView, TensorView] {
  const [x, y] = broadcastOperands([args.tensor(a), args.tensor(b)]);
  if (x === undefined || y === undefined || !isTensor(x) || !isTensor(y)) return args.fail('expected two tensors');
  return [x, y];
}

function dtypeArg(args: NodeArgs, name: string): DataType | null {
  if (args.isNone(name)) return null;
  const d = dataTypeOfCode(args.int(name));
  return d.dtype ?? args.fail(d.error);
}

const checkDtypeArg =
  (name: string) =>
  (a: StaticArgs): string | null => {
    const v = a.get(name);
    if (v === null || v.kind === 'none') return null;
    if (v.kind !== 'int') return `argument '${name}' is not a constant dtype`;
    const d = dataTypeOfCode(Number(v.value));
    return d.error ?? null;
  };

/** aten::to / type_as: a cast (a copy when the dtype is unchanged, as nvFuser's castOp). */
function lowerTo(args: NodeArgs, dtype: DataType | null): JitVal[] {
  const x = args.tensor('self');
  return out(dtype === null ? set(x) : cast(x, dtype));
}

const checkCudaDevice = (a: StaticArgs): string | null => {
  const d = a.get('device');
  if (d === null || d.kind === 'none') return null;
  return d.kind === 'device' && d.text.startsWith('cuda') ? null : 'aten::to a non-CUDA device leaves the fusion';
};

/**
 * The autocast casts (CUDA tensors): a floating tensor other than Double is cast to `to` when
 * `cuda_enabled`, anything else passes through (at::autocast::cached_cast's is_eligible).
 */
function lowerAutocast(args: NodeArgs, to: DataType): JitVal[] {
  const x = args.tensor('self');
  const eligible = x.dtype === 'Float' || x.dtype === 'Half' || x.dtype === 'BFloat16';
  return out(args.bool('cuda_enabled') && eligible && x.dtype !== to ? cast(x, to) : set(x));
}

const AUTOCAST_CONSTANTS = ['cuda_enabled', 'cpu_enabled', 'cuda_dtype', 'cpu_dtype'];

export const ACTIVATION_OPS: OpTableSection = {
  'aten::softplus': {
    schemas: ['aten::softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor'],
    lower: (args) => out(softplus(args.tensor('self'), args.floatLike('beta'), args.floatLike('threshold'))),
  },
  'aten::_to_copy': {
    schemas: [
      'aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor',
    ],
    constants: ['dtype', 'device'],
    check: (a) => checkDtypeArg('dtype')(a) ?? checkCudaDevice(a),
    lower: (args) => lowerTo(args, dtypeArg(args, 'dtype')),
  },
  'aten::_autocast_to_reduced_precision': {
    schemas: ['aten::_autocast_to_reduced_precision(Tensor(a) self, bool cuda_enabled, bool cpu_enabled, ScalarType cuda_dtype, ScalarType cpu_dtype) -> Tensor(a)'],
    constants: AUTOCAST_CONSTANTS,
    check: checkDtypeArg('cuda_dtype'),
    lower: (args) => lowerAutocast(args, dtypeArg(args, 'cuda_dtype') ?? args.fail('cuda_dtype is None')),
  },
  'aten::_autocast_to_full_precision': {
    schemas: ['aten::_autocast_to_full_precision(Tensor(a) self, bool cuda_enabled, bool cpu_enabled) -> Tensor(a)'],
    constants: AUTOCAST_CONSTANTS,
    lower: (args) => lowerAutocast(args, 'Float'),
  },
  'aten::gelu': {
    schemas: ['aten::gelu(Tensor self, *, str approximate="none") -> Tensor', 'aten::gelu(Tensor self) -> Tensor'],
    constants: ['approximate'],
    check: checkApproximate,
    lower: (args) => out(gelu(args.tensor('self'), approximation(args))),
  },
  'aten::gelu_backward': {
    schemas: [
      'aten::gelu_backward(Tensor grad_output, Tensor self, *, str approximate="none") -> Tensor',
      'aten::gelu_backward(Tensor grad, Tensor self) -> Tensor',
    ],
    constants: ['approximate'],
    check: checkApproximate,
    lower: (args) => {
      const [g, x] = pair(args, args.has('grad_output') ? 'grad_output' : 'grad', 'self');
      return out(geluBackward(g, x, approximation(args)));
    },
  },
  'aten::silu': { schemas: ['aten::silu(Tensor self) -> Tensor'], lower: (args) => out(silu(args.tensor('self'))) },
  'aten::silu_backward': {
    schemas: ['aten::silu_backward(Tensor grad_output, Tensor self) -> Tensor'],
    lower: (args) => out(siluBackward(...pair(args, 'grad_output', 'self'))),
  },
  'aten::sigmoid_backward': {
    schemas: ['aten::sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor'],
    lower: (args) => out(sigmoidBackward(...pair(args, 'grad_output', 'output'))),
  },
  'aten::tanh_backward': {
    schemas: ['aten::tanh_backward(Tensor grad_output, Tensor output) -> Tensor'],
    lower: (args) => out(tanhBackward(...pair(args, 'grad_output', 'output'))),
  },
  'aten::threshold_backward': {
    schemas: ['aten::threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor'],
    lower: (args) => {
      const [g, x] = pair(args, 'grad_output', 'self');
      return out(thresholdBackward(g, x, args.floatLike('threshold')));
    },
  },
  'aten::to': {
    schemas: [
      'aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)',
      'aten::to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)',
      'aten::to.prim_dtype(Tensor(a) self, int? dtype=None, bool non_blocking=False, bool copy=False) -> Tensor(a)',
      'aten::to.prim_Device(Tensor(a) self, Device? device, int? dtype=None, bool non_blocking=False, bool copy=False) -> Tensor(a)',
      'aten::to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)',
    ],
    constants: ['dtype', 'device'],
    check: (a) => checkDtypeArg('dtype')(a) ?? checkCudaDevice(a),
    lower: (args) => lowerTo(args, args.has('other') ? args.tensor('other').dtype : dtypeArg(args, 'dtype')),
  },
  'aten::type_as': {
    schemas: ['aten::type_as(Tensor self, Tensor other) -> Tensor'],
    lower: (args) => lowerTo(args, args.tensor('other').dtype),
  },
};
