// Schema matching (PyTorch's Node::matches): a node matches a schema when its kind is the
// schema's qualified name, it has exactly one input per formal (more only for varargs), and each
// input's type is a subtype of its formal's type.

import type { Node } from '../ir/node.js';
import { isSubtypeOf } from '../types/jit-type.js';
import type { FunctionSchema } from './function-schema.js';
import { parseSchema } from './schema-parser.js';
import { schemasFor } from './schema-table.js';

const parsedCache = new Map<string, FunctionSchema>();

/** Parses (and memoizes) a schema string. Throws ParseError for malformed schemas. */
export function getSchema(text: string): FunctionSchema {
  let s = parsedCache.get(text);
  if (s === undefined) {
    s = parseSchema(text);
    parsedCache.set(text, s);
  }
  return s;
}

export function nodeMatchesSchema(node: Node, schema: string | FunctionSchema): boolean {
  const s = typeof schema === 'string' ? getSchema(schema) : schema;
  if (node.kind !== s.name) return false;
  const actuals = node.inputs;
  const formals = s.arguments;
  if (actuals.length < formals.length) return false;
  if (!s.isVararg && actuals.length !== formals.length) return false;
  return formals.every((f, i) => {
    const a = actuals[i];
    return a !== undefined && isSubtypeOf(a.type, f.type);
  });
}

/** The first built-in schema that `node` matches, or null. */
export function findMatchingSchema(node: Node): FunctionSchema | null {
  for (const s of schemasFor(node.kind)) {
    if (nodeMatchesSchema(node, s)) return s;
  }
  return null;
}
