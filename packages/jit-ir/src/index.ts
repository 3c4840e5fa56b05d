// Public API of @tsfuser/jit-ir: the TorchScript graph IR (Graph/Block/Node/Value), types,
// parseIR and the printer, operator schemas, and the passes the graph fuser runs.

export const packageName = '@tsfuser/jit-ir';

export { ParseError, IRError, formatParseError } from './errors.js';
export { Symbol, prim, attr } from './symbol.js';

export * from './types/index.js';

export { Graph, type ValueMapping } from './ir/graph.js';
export { Block } from './ir/block.js';
export { Node, attributeKey } from './ir/node.js';
export { Value, type Use } from './ir/value.js';
export {
  type AttributeValue,
  type AttributeKind,
  type TensorLiteral,
  attributeValuesEqual,
  printAttributeValue,
} from './ir/attributes.js';
export { type ConstantValue, constantValue, createConstantNode } from './ir/constants.js';
export { formatDouble, formatG } from './ir/float-format.js';

export { parseIR, MAX_BLOCK_NESTING } from './text/parser.js';
export { quoteForMessage } from './text/lexer.js';
export { type ExactInteger, INT64_MIN, INT64_MAX } from './text/integers.js';
export { printGraph, printNode } from './text/printer.js';

export {
  type FunctionSchema,
  type SchemaArgument,
  type SchemaReturn,
  type SchemaDefault,
  printSchema,
  isMutatingSchema,
} from './schema/function-schema.js';
export { parseSchema } from './schema/schema-parser.js';
export { BUILTIN_SCHEMAS, builtinSchemas, schemasFor } from './schema/schema-table.js';
export { getSchema, nodeMatchesSchema, findMatchingSchema } from './schema/matching.js';

export { eliminateDeadCode } from './passes/dead-code-elimination.js';
export { eliminateCommonSubexpression } from './passes/common-subexpression-elimination.js';
export { constantPooling } from './passes/constant-pooling.js';
export { lowerTupleOutputs } from './passes/lower-tuple-outputs.js';
export {
  AliasDb,
  moveBeforeTopologicallyValid,
  moveAfterTopologicallyValid,
  couldMoveBeforeTopologically,
  couldMoveAfterTopologically,
} from './passes/alias-db.js';
export { hasSideEffects, isMutating, isNondeterministic, hasMemoryEffects } from './passes/side-effects.js';
