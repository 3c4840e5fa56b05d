// Random ops of the legacy parser's table: training-mode `aten::dropout`, `aten::native_dropout`
// (output and Bool mask), `aten::native_dropout_backward` and `aten::rand_like`. Numbers come from
// fusion-ir's RNGOp keyed by the seed and offset the graph driver adds as fusion inputs
// (LoweringContext.rng; the runner fills them from its PhiloxGenerator, so each run draws anew).
// Semantics as PyTorch: mask = rand < 1 − p, output = input · mask / (1 − p) (0 for p = 1);
// native_dropout with train=False returns the input and an all-true mask; no draw happens when
// nothing is random (p = 0 or inference), so such a fusion has no seed and offset inputs.

import { cast, ge, isFloatingType, lt, mul, randLike, set, type TensorView } from '@tsfuser/fusion-ir';
import type { NodeArgs, StaticArgs } from './args.js';
import { dataTypeOfCode } from './dtypes.js';
import type { LoweringContext, OpTableSection } from './op-entry.js';
import { out } from './operands.js';
import type { JitVal } from './values.js';

/** Dropout's probability: a constant in [0, 1]. */
function checkProbability(a: StaticArgs): string | null {
  const v = a.get('p');
  if (v === null || (v.kind !== 'float' && v.kind !== 'int')) return "argument 'p' is not a constant number";
  const p = Number(v.value);
  return p >= 0 && p <= 1 ? null : `dropout probability has to be between 0 and 1, but got ${p}`;
}

/** The mask (Bool: rand < keep) and the scaled output of a training dropout. */
function drop(x: TensorView, p: number, ctx: LoweringContext): { output: TensorView; mask: TensorView } {
  const keep = 1 - p;
  const source = isFloatingType(x.dtype) ? x : cast(x, 'Float');
  const mask = lt(randLike(source, ctx.rng()), keep);
  const output = mul(mul(x, mask), keep === 0 ? 0 : 1 / keep);
  return { output, mask };
}

/** An all-true Bool mask of x's shape (x ≥ x is false for NaN, so compare a cast instead). */
function keepAll(x: TensorView): TensorView {
  const zero = mul(cast(x, 'Float'), 0);
  return ge(zero, zero);
}

export const RANDOM_OPS: OpTableSection = {
  'aten::dropout': {
    schemas: ['aten::dropout(Tensor input, float p, bool train) -> Tensor'],
    constants: ['p', 'train'],
    check: checkProbability,
    lower: (args: NodeArgs, ctx: LoweringContext): JitVal[] => {
      const x = args.tensor('input');
      const p = args.number('p');
      if (!args.bool('train') || p === 0) return out(set(x));
      return out(drop(x, p, ctx).output);
    },
  },
  'aten::native_dropout': {
    schemas: ['aten::native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)'],
    constants: ['p', 'train'],
    check: checkProbability,
    lower: (args: NodeArgs, ctx: LoweringContext): JitVal[] => {
      const x = args.tensor('input');
      const p = args.number('p');
      // PyTorch: train None counts as training.
      const train = args.isNone('train') ? true : args.bool('train');
      if (!train) return [...out(set(x)), ...out(keepAll(x))];
      if (p === 0) return [...out(set(x)), ...out(keepAll(x))];
      const { output, mask } = drop(x, p, ctx);
      return [...out(output), ...out(mask)];
    },
  },
  'aten::native_dropout_backward': {
    schemas: ['aten::native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor'],
    constants: ['scale'],
    lower: (args: NodeArgs): JitVal[] => out(mul(mul(args.tensor('grad_output'), args.tensor('mask')), args.number('scale'))),
  },
  'aten::rand_like': {
    schemas: [
      'aten::rand_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor',
    ],
    constants: ['dtype'],
    check: (a) => {
      const v = a.get('dtype');
      if (v === null || v.kind === 'none') return null;
      if (v.kind !== 'int') return "argument 'dtype' is not a constant dtype";
      const d = dataTypeOfCode(Number(v.value));
      if (d.error !== undefined) return d.error;
      return d.dtype !== undefined && !isFloatingType(d.dtype) ? `rand_like: dtype ${d.dtype} is not a floating type` : null;
    },
    lower: (args: NodeArgs, ctx: LoweringContext): JitVal[] => {
      const x = args.tensor('self');
      const code = args.isNone('dtype') ? null : dataTypeOfCode(args.int('dtype'));
      const dtype = code?.dtype ?? (isFloatingType(x.dtype) ? x.dtype : null);
      if (dtype === null) return args.fail(`rand_like of a ${x.dtype} tensor needs a floating dtype`);
      return out(randLike(x.dtype === dtype ? x : cast(x, dtype), ctx.rng()));
    },
  },
};
