// Lowerings of the matrix products and attention to fusion-ir's GEMM / attention exprs:
// aten::linear → linear (a LinearOp), aten::matmul / mm / bmm → matmul (a MatmulOp; mm and bmm
// keep PyTorch's rank checks), aten::addmm / baddbmm → beta·self + alpha·product (beta 0 drops
// self, as PyTorch ignores it), aten::scaled_dot_product_attention → sdpfa_fwd's output (a
// Bool attn_mask becomes its mask, a floating one its bias, both given the query's rank; scale
// and is_causal as given; enable_gqa false refuses differing head counts as PyTorch does; a
// dropout draws from the graph runner's Philox seed and offset, like aten::dropout — tsfuser's
// stream, not PyTorch's numbers).
// Shapes, dtypes and messages are the ops' own (PyTorch's words), so a traced graph with
// mismatched sizes fails with the message PyTorch gives.
//
// Invariant: parseJitIR lowers these nodes wherever it is asked to (a fusion group, a whole
// graph, a one-node graph of the reference runner); the matrix products join fusion groups (the
// GPU backend runs them as GEMM segments), attention stays outside them (fusibility.ts).

import { add, broadcast, linear, matmul, mul, sdpfaFwd, type Operand, type TensorView } from '@tsfuser/fusion-ir';
import type { NodeArgs } from './args.js';
import type { LoweringContext, OpTableSection } from './op-entry.js';
import { broadcastOperands, isOne, out } from './operands.js';
import type { JitVal } from './values.js';

function requireRank(args: NodeArgs, name: string, rank: number, what: string): TensorView {
  const t = args.tensor(name);
  if (t.rank() !== rank) args.fail(`${what} must be a ${rank === 2 ? 'matrix' : `${rank}D tensor`}`);
  return t;
}

function lowerMm(args: NodeArgs): JitVal[] {
  const a = requireRank(args, 'self', 2, 'self');
  const b = requireRank(args, 'mat2', 2, 'mat2');
  return out(matmul(a, b));
}

function lowerBmm(args: NodeArgs): JitVal[] {
  // torch.bmm's messages: "batch1 must be a 3D tensor" / "batch2 must be a 3D tensor"
  const a = requireRank(args, 'self', 3, 'batch1');
  const b = requireRank(args, 'mat2', 3, 'batch2');
  return out(matmul(a, b));
}

/** beta·self + alpha·product, with PyTorch's broadcasting of self; beta 0 ignores self (NaN included). */
function scaledSum(args: NodeArgs, product: TensorView): JitVal[] {
  const beta = args.floatLike('beta');
  const alpha = args.floatLike('alpha');
  const scaled: Operand = isOne(alpha) ? product : mul(product, alpha);
  if (beta === 0) return out(scaled as TensorView);
  const self = args.tensor('self');
  const [s, p] = broadcastOperands([isOne(beta) ? self : mul(self, beta), scaled]) as [TensorView, TensorView];
  return out(add(s, p));
}

function lowerAddmm(args: NodeArgs): JitVal[] {
  const a = requireRank(args, 'mat1', 2, 'mat1');
  const b = requireRank(args, 'mat2', 2, 'mat2');
  return scaledSum(args, matmul(a, b));
}

function lowerBaddbmm(args: NodeArgs): JitVal[] {
  const a = requireRank(args, 'batch1', 3, 'batch1');
  const b = requireRank(args, 'batch2', 3, 'batch2');
  return scaledSum(args, matmul(a, b));
}

/** A mask / bias of lower rank gets leading broadcast dims (PyTorch broadcasts attn_mask). */
function toRank(t: TensorView, rank: number): TensorView {
  if (t.rank() >= rank) return t;
  return broadcast(t, Array.from({ length: rank }, (_, d) => d < rank - t.rank()));
}

function lowerSdpa(args: NodeArgs, ctx: LoweringContext): JitVal[] {
  const q = args.tensor('query');
  const k = args.tensor('key');
  const v = args.tensor('value');
  const attn = args.optionalTensor('attn_mask');
  const gqa = args.has('enable_gqa') ? args.bool('enable_gqa') : false;
  // The heads from the fusion's constant extents, else from the graph's (profiled / traced) types.
  const heads = (name: string, t: TensorView): number | null => {
    const c = t.domain.logicalNoReductions()[t.rank() - 3]?.logicalExtent().constNumber() ?? null;
    if (c !== null) return c;
    const type = args.graphValue(name).type;
    const sizes = type.kind === 'Tensor' ? type.sizes : null;
    const d = sizes === null ? null : (sizes[sizes.length - 3] ?? null);
    return d === null ? null : Number(d);
  };
  const h = heads('query', q);
  const hkv = heads('key', k);
  if (!gqa && h !== null && hkv !== null && h !== hkv) {
    args.fail(`the query has ${h} heads and the key ${hkv}: grouped-query attention needs enable_gqa=True`);
  }
  const mask = attn !== null && attn.dtype === 'Bool' ? toRank(attn, q.rank()) : null;
  const bias = attn !== null && attn.dtype !== 'Bool' ? toRank(attn, q.rank()) : null;
  const scale = args.isNone('scale') ? null : args.floatLike('scale');
  const dropoutP = args.floatLike('dropout_p');
  // Dropout draws from the graph runner's generator (seed and offset fusion inputs), as aten::dropout does.
  const rng = dropoutP !== 0 ? ctx.rng() : {};
  const r = sdpfaFwd(q, k, v, { bias, mask, dropoutP, isCausal: args.bool('is_causal'), scale, rng });
  return out(r.output);
}

export const MATMUL_OPS: OpTableSection = {
  'aten::linear': {
    schemas: ['aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor'],
    lower: (a) => out(linear(a.tensor('input'), a.tensor('weight'), a.optionalTensor('bias'))),
  },
  'aten::matmul': {
    schemas: ['aten::matmul(Tensor self, Tensor other) -> Tensor'],
    lower: (a) => out(matmul(a.tensor('self'), a.tensor('other'))),
  },
  'aten::mm': { schemas: ['aten::mm(Tensor self, Tensor mat2) -> Tensor'], lower: lowerMm },
  'aten::bmm': { schemas: ['aten::bmm(Tensor self, Tensor mat2) -> Tensor'], lower: lowerBmm },
  'aten::addmm': {
    schemas: ['aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor'],
    constants: ['beta', 'alpha'],
    lower: lowerAddmm,
  },
  'aten::baddbmm': {
    schemas: ['aten::baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor'],
    constants: ['beta', 'alpha'],
    lower: lowerBaddbmm,
  },
  'aten::scaled_dot_product_attention': {
    schemas: [
      'aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor',
    ],
    constants: ['dropout_p', 'is_causal', 'scale', 'enable_gqa'],
    lower: lowerSdpa,
  },
};

/** The ones the fuser leaves outside fusion groups (fusibility.ts): attention. */
export const GROUP_EXCLUDED_OPS: ReadonlySet<string> = new Set(['aten::scaled_dot_product_attention']);
