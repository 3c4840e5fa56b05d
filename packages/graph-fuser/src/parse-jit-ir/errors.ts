// JitLoweringError: the one error parseJitIR throws. Its message names the op, the node (its
// printed line, which shows the output %names and the source location) and why it cannot be
// lowered, so a user can find the node in a graph dump.

import { printNode, type Node } from '@tsfuser/jit-ir';

/** The node as it prints in a graph dump, on one line, without indentation. */
export function nodeLabel(node: Node): string {
  const first = printNode(node).split('\n')[0] ?? node.kind;
  return first.trim();
}

export class JitLoweringError extends Error {
  override readonly name = 'JitLoweringError';

  constructor(
    /** The operator (`aten::add`), or `graph` for problems with graph inputs and outputs. */
    readonly op: string,
    /** Why it cannot be lowered. */
    readonly reason: string,
    /** The offending node, when there is one. */
    readonly node: Node | null = null,
  ) {
    super(node === null ? `${op}: ${reason}` : `${op}: ${reason}\n  at node: ${nodeLabel(node)}`);
  }
}

/** An error about node `node` of kind `node.kind`. */
export function nodeError(node: Node, reason: string): JitLoweringError {
  return new JitLoweringError(node.kind, reason, node);
}
