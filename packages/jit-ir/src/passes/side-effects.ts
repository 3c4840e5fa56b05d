// Effect classification of nodes shared by DCE, CSE and the topological-move checks:
// side effects (prim::Print, prim::RaiseException, ...), in-place mutation (`aten::add_`, or a
// schema argument annotated `(a!)`), and nondeterminism (dropout, rand*).

import type { Node } from '../ir/node.js';
import { isMutatingSchema } from '../schema/function-schema.js';
import { schemasFor } from '../schema/schema-table.js';

const SIDE_EFFECT_KINDS: ReadonlySet<string> = new Set([
  'prim::Print',
  'prim::RaiseException',
  'prim::SetAttr',
  'prim::AddStatValue',
  'prim::TimePoint',
  'prim::CallFunction',
  'prim::CallMethod',
  'prim::BailoutTemplate',
  'prim::BailOut',
  'prim::Enter',
  'prim::Exit',
  'prim::rpc_async',
  'prim::rpc_sync',
  'prim::rpc_remote',
  'aten::warn',
  'aten::save',
  'aten::manual_seed',
  'aten::wait',
]);

const NONDETERMINISTIC_KINDS: ReadonlySet<string> = new Set([
  'aten::dropout',
  'aten::native_dropout',
  'aten::feature_dropout',
  'aten::alpha_dropout',
  'aten::bernoulli',
  'aten::rand',
  'aten::rand_like',
  'aten::randn',
  'aten::randn_like',
  'aten::randint',
  'aten::randint_like',
  'aten::randperm',
  'aten::multinomial',
  'aten::normal',
  'aten::poisson',
  'aten::rrelu',
]);

/** PyTorch's Node::hasSideEffects: the node must run even if its outputs are unused. */
export function hasSideEffects(n: Node): boolean {
  return SIDE_EFFECT_KINDS.has(n.kind);
}

/** Whether some built-in schema of a kind writes an argument, by kind (the table is fixed). */
const kindHasMutatingSchema = new Map<string, boolean>();

/** True for in-place operators: `aten::add_` style names or a known schema with `(a!)`. */
export function isMutating(n: Node): boolean {
  const name = n.kind.slice(n.kind.indexOf('::') + 2);
  if (n.kind.startsWith('aten::') && name.endsWith('_') && !name.startsWith('_') && !name.endsWith('__')) return true;
  // No schema of the kind writes: false whichever overload matches, without matching one (the
  // fuser and DCE/CSE ask this for every node, each time they look at it).
  let mutatingKind = kindHasMutatingSchema.get(n.kind);
  if (mutatingKind === undefined) kindHasMutatingSchema.set(n.kind, (mutatingKind = schemasFor(n.kind).some(isMutatingSchema)));
  if (!mutatingKind) return false;
  const schema = n.schema();
  if (schema !== null) return isMutatingSchema(schema);
  return schemasFor(n.kind).some(isMutatingSchema);
}

export function isNondeterministic(n: Node): boolean {
  return NONDETERMINISTIC_KINDS.has(n.kind);
}

/** Side effects or mutation anywhere in `n` or its nested blocks: the node is a reorder barrier. */
export function hasMemoryEffects(n: Node): boolean {
  if (hasSideEffects(n) || isMutating(n)) return true;
  return n.blocks.some((b) => b.nodes().some(hasMemoryEffects));
}
