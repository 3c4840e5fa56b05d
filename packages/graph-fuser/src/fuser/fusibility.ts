// The fusibility rules of CudaGraphFuser, all in this one file (the legacy fuser's
// isFusibleCudaFusionGroup): which nodes may start or join a prim::CudaFusionGroup, and whether a
// producer may be merged into a consumer. Everything else in the fuser is mechanics.
// Rules:
//   - the op must be lowerable by parseJitIR (jitOpSupport) — so a group never holds a node the
//     lowering would reject;
//   - the node produces a tensor (sizes and other host scalars stay outside);
//   - a view-like op (reshape, permute, ...) whose input or output is written in place stays out;
//   - every tensor the node reads or writes is a CUDA tensor with a known dtype a fusion can hold
//     and a known rank (the guard needs complete types to check);
//   - reductions sit only at group outputs: a producer that is (or whose group contains) a
//     reduction is never merged into a consumer, as the legacy fuser did; a sibling (another
//     reader of the same tensor, horizontal fusion) may be a reduction, since no group member
//     reads its result (var and mean of one input form one group);
//   - producer and consumer live on the same device;
//   - matrix products (aten::linear, matmul, mm, bmm, addmm, baddbmm) join groups: the GPU
//     backend runs each as a GEMM (cuBLASLt) segment of the group's fusion, its bias / gelu /
//     relu / residual epilogue fused where cuBLASLt's epilogues allow (the segmenter says why
//     any other boundary is there); attention (scaled_dot_product_attention) stays outside.
// Invariant: these predicates only read the graph.

import { isMutating, type Node, type TensorType, type Value } from '@tsfuser/jit-ir';
import { jitOpSupport } from '../parse-jit-ir/index.js';
import { GROUP_EXCLUDED_OPS } from '../parse-jit-ir/matmul.js';

export const CUDA_FUSION_GROUP = 'prim::CudaFusionGroup';

/** Element types a fusion can hold (c10 names). */
const FUSIBLE_SCALAR_TYPES: ReadonlySet<string> = new Set([
  'Bool', 'Int', 'Long', 'Half', 'BFloat16', 'Float', 'Double',
  'ComplexFloat', 'ComplexDouble', 'Float8_e4m3fn', 'Float8_e5m2', 'Float8_e8m0fnu',
]);

/** Ops whose output drops (or keeps as size 1) the reduced dims: they end a group. */
const REDUCTION_OPS: ReadonlySet<string> = new Set([
  'aten::sum', 'aten::mean', 'aten::var', 'aten::std', 'aten::amax', 'aten::amin', 'aten::sum_to_size', 'aten::_grad_sum_to_size',
]);

/**
 * Ops whose output aliases their input in eager PyTorch. Inside a group the output is a fresh
 * tensor, so such a node may only be fused when nothing writes the input or the output in place
 * (the legacy fuser's replaceAliasOpsWithCopy condition).
 */
const ALIAS_OPS: ReadonlySet<string> = new Set([
  'aten::view',
  'aten::reshape',
  'aten::view_as',
  'aten::reshape_as',
  'aten::squeeze',
  'aten::unsqueeze',
  'aten::permute',
  'aten::t',
  'aten::transpose',
  'aten::expand',
  'aten::expand_as',
  'aten::flatten',
  'aten::contiguous',
]);

/** True when some in-place op writes `v` (its mutated first argument). */
function hasWriters(v: Value): boolean {
  return v.uses.some((u) => u.offset === 0 && isMutating(u.user));
}

/**
 * Nodes that are only ever pulled into a group by the fused node that needs them: constants are
 * inlined, lists of constants and profiled values (prim::profile_ivalue, checked by the guard)
 * are merged as producers.
 */
const HELPER_OPS: ReadonlySet<string> = new Set(['prim::Constant', 'prim::ListConstruct', 'prim::profile_ivalue']);

export type Verdict = { fusible: true } | { fusible: false; reason: string };

const YES: Verdict = { fusible: true };
const no = (reason: string): Verdict => ({ fusible: false, reason });

export function isFusionGroup(n: Node): boolean {
  return n.kind === CUDA_FUSION_GROUP;
}

export function isTensorValue(v: Value): boolean {
  return v.type.kind === 'Tensor';
}

/** Why a tensor value cannot live at a group boundary, or null when it can. */
export function tensorTypeProblem(v: Value): string | null {
  const t = v.type;
  if (t.kind !== 'Tensor') return null;
  if (t.scalarType === null) return `%${v.debugName()} has no dtype`;
  if (!FUSIBLE_SCALAR_TYPES.has(t.scalarType)) return `%${v.debugName()} has dtype ${t.scalarType}, which a fusion cannot hold`;
  if (t.sizes === null) return `%${v.debugName()} has no rank`;
  if (t.device === null) return `%${v.debugName()} has no device`;
  // A 0-dim CPU tensor is a boxed scalar: the kernel takes it by value.
  if (t.device.type === 'cpu' && t.sizes.length === 0) return null;
  if (t.device.type !== 'cuda') return `%${v.debugName()} is on ${t.device.type}, not cuda`;
  return null;
}

/** The CUDA device index of a node's tensors (first known), or null. */
export function deviceOf(n: Node): number | null {
  const values = isFusionGroup(n) ? [...n.inputs, ...n.outputs] : [...n.inputs, ...n.outputs];
  for (const v of values) {
    const t: TensorType | null = v.type.kind === 'Tensor' ? v.type : null;
    if (t?.device?.type === 'cuda') return t.device.index ?? 0;
  }
  return null;
}

/** Can `n` on its own be part of a fusion group (as a consumer that starts one, or a producer)? */
export function nodeFusibility(n: Node): Verdict {
  if (isFusionGroup(n)) return YES;
  if (HELPER_OPS.has(n.kind)) return no(`${n.kind} is only inlined into the group that uses it`);
  if (ALIAS_OPS.has(n.kind) && [...n.inputs.slice(0, 1), ...n.outputs].some(hasWriters)) {
    return no('a view whose input or output is written in place must stay an alias, outside fusions');
  }
  // Sizes, dtypes and other scalars are host values: computing them in a kernel gains nothing.
  if (!n.outputs.some(isTensorValue)) return no('the node produces no tensor');
  if (GROUP_EXCLUDED_OPS.has(n.kind)) return no(`${n.kind} is attention: the fuser keeps it outside fusion groups (it runs on its own)`);
  const support = jitOpSupport(n);
  if (!support.supported) return no(support.reason);
  // Unused outputs (native_batch_norm's save_mean when not training) need no type.
  const tensors = [...n.inputs, ...n.outputs.filter((o) => o.uses.length > 0)].filter(isTensorValue);
  for (const v of tensors) {
    const problem = tensorTypeProblem(v);
    if (problem !== null) return no(problem);
  }
  return YES;
}

export function isReductionNode(n: Node): boolean {
  return REDUCTION_OPS.has(n.kind);
}

/** True when `n` is a reduction or a fusion group containing one. */
export function containsReduction(n: Node): boolean {
  if (!isFusionGroup(n)) return isReductionNode(n);
  return n.g('Subgraph').nodes().some(isReductionNode);
}

/**
 * May `producer` be merged into the group of `consumer`? (Topological validity is checked
 * separately, by moving the producer.)
 */
export function producerFusibility(consumer: Node, producer: Node): Verdict {
  const c = nodeFusibility(consumer);
  if (!c.fusible) return c;
  if (producer.kind === 'prim::ListConstruct') return listFusibility(producer);
  if (producer.kind === 'prim::profile_ivalue') return YES; // its profiled value is guarded
  const p = nodeFusibility(producer);
  if (!p.fusible) return p;
  if (containsReduction(producer)) return no('a reduction result leaves its group (reductions only at group outputs)');
  const dc = deviceOf(consumer);
  const dp = deviceOf(producer);
  if (dc !== null && dp !== null && dc !== dp) return no(`producer is on cuda:${dp}, consumer on cuda:${dc}`);
  return YES;
}

/**
 * May `sibling` (another reader of one of `consumer`'s tensor inputs, before it) join the group
 * of `consumer`? Both must be fusible and on one device; unlike a producer, a sibling may be or
 * contain a reduction when the consumer does not read its result (it only leaves the group).
 */
export function siblingFusibility(consumer: Node, sibling: Node): Verdict {
  const c = nodeFusibility(consumer);
  if (!c.fusible) return c;
  const s = nodeFusibility(sibling);
  if (!s.fusible) return s;
  if (containsReduction(sibling) && sibling.outputs.some((o) => o.uses.some((u) => u.user === consumer))) {
    return no('a reduction result leaves its group (reductions only at group outputs)');
  }
  const dc = deviceOf(consumer);
  const ds = deviceOf(sibling);
  if (dc !== null && ds !== null && dc !== ds) return no(`sibling is on cuda:${ds}, consumer on cuda:${dc}`);
  return YES;
}

/**
 * A list of constants (reduction dims, sizes) joins the group of the node that reads it; so does
 * a list of ints some of which are runtime sizes (`[x.shape[-1]]` for layer_norm, reshape sizes):
 * they become Int inputs of the group. The consumer's own check (jitOpSupport) decides whether
 * it accepts runtime items.
 */
function listFusibility(list: Node): Verdict {
  const fits = list.inputs.every((v) => v.node.kind === 'prim::Constant' || v.type.kind === 'Int');
  return fits ? YES : no('a list of runtime values other than ints stays outside the group');
}
