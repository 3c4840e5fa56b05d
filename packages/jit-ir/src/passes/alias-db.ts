// Topologically valid moves, in the spirit of PyTorch's AliasDb::moveBefore/AfterTopologicallyValid.
// In: a node to move and a move point in the same block. Out: true and the node moved (dragging
// along the nodes it depends on, or that depend on it, as PyTorch does), or false and nothing
// changed. Barriers: nodes with side effects (prim::Print, prim::RaiseException, ...) and in-place
// writers (`aten::add_`, schemas with `(a!)`), also when nested inside a block. Data
// dependencies are seen through nested blocks (a use inside a prim::If counts as a use by the If).
// Invariant: after a successful move every value is still defined before all of its uses.

import type { Block } from '../ir/block.js';
import type { Graph } from '../ir/graph.js';
import type { Node } from '../ir/node.js';
import type { Value } from '../ir/value.js';
import { hasMemoryEffects, isMutating } from './side-effects.js';

type MoveSide = 'before' | 'after';

/** The nodes that must move together with the mover. */
class WorkingSet {
  readonly nodes: Node[];
  constructor(
    mover: Node,
    private readonly block: Block,
  ) {
    this.nodes = [mover];
  }

  add(n: Node): void {
    this.nodes.push(n);
  }

  eraseMover(): void {
    this.nodes.shift();
  }

  dependsOn(n: Node): boolean {
    const front = this.nodes[0];
    if (front === undefined) return false;
    return n.isAfter(front) ? this.producesFor(n) : this.consumesFrom(n);
  }

  /** Does `n` (or a node nested in it) use an output of the working set? */
  private producesFor(n: Node): boolean {
    return this.nodes.some((w) => w.outputs.some((o) => this.usedBy(o, (user) => user === n)));
  }

  /** Does the working set (or a node nested in it) use an output of `n`? */
  private consumesFrom(n: Node): boolean {
    return n.outputs.some((o) => this.usedBy(o, (user) => this.nodes.includes(user)));
  }

  private usedBy(v: Value, pred: (userInBlock: Node) => boolean): boolean {
    return v.uses.some((u) => {
      const ancestor = u.user.findAncestorInBlock(this.block);
      return ancestor !== null && pred(ancestor);
    });
  }
}

function tryMove(toMove: Node, movePoint: Node, side: MoveSide, dryRun: boolean): boolean {
  const block = toMove.owningBlock;
  if (block === null || !toMove.inBlockList() || !movePoint.inBlockList() || movePoint.owningBlock !== block) return false;
  if (toMove === movePoint) return true;

  const forward = toMove.isBefore(movePoint);
  const step = (n: Node): Node => (forward ? n.next : n.prev) as Node;
  const toMoveIsOnMoveSide = (side === 'before' && forward) || (side === 'after' && !forward);
  let curNode = step(toMove);
  if (toMoveIsOnMoveSide && curNode === movePoint) return true;
  // Reordering a barrier, or moving past one, is never valid.
  if (hasMemoryEffects(toMove) || (!toMoveIsOnMoveSide && hasMemoryEffects(movePoint))) return false;

  const workingSet = new WorkingSet(toMove, block);
  while (curNode !== movePoint) {
    if (hasMemoryEffects(curNode)) return false;
    if (workingSet.dependsOn(curNode)) workingSet.add(curNode);
    curNode = step(curNode);
  }

  // When toMove ends up on its original side of movePoint, it separates from the nodes that
  // depend on it (or it on them), which go to the other side of movePoint.
  const split = toMoveIsOnMoveSide;
  if (split) workingSet.eraseMover();
  if (workingSet.dependsOn(movePoint)) return false;
  if (dryRun) return true;

  const place = (n: Node, at: Node, s: MoveSide): void => {
    if (s === 'before') n.moveBefore(at);
    else n.moveAfter(at);
  };
  if (split) {
    place(toMove, movePoint, side);
    const reversed: MoveSide = side === 'before' ? 'after' : 'before';
    let anchor = movePoint;
    for (const n of workingSet.nodes) {
      place(n, anchor, reversed);
      anchor = n;
    }
  } else {
    let anchor = movePoint;
    for (const n of workingSet.nodes) {
      place(n, anchor, side);
      anchor = n;
    }
  }
  return true;
}

/** Moves `toMove` right before `movePoint` if that keeps the graph valid; returns whether it did. */
export function moveBeforeTopologicallyValid(toMove: Node, movePoint: Node): boolean {
  return tryMove(toMove, movePoint, 'before', false);
}

/** Moves `toMove` right after `movePoint` if that keeps the graph valid; returns whether it did. */
export function moveAfterTopologicallyValid(toMove: Node, movePoint: Node): boolean {
  return tryMove(toMove, movePoint, 'after', false);
}

export function couldMoveBeforeTopologically(toMove: Node, movePoint: Node): boolean {
  return tryMove(toMove, movePoint, 'before', true);
}

export function couldMoveAfterTopologically(toMove: Node, movePoint: Node): boolean {
  return tryMove(toMove, movePoint, 'after', true);
}

/**
 * The graph-level view the fuser holds (PyTorch's AliasDb): move queries plus the write check.
 * It keeps no cache, so it stays valid while the graph is mutated.
 */
export class AliasDb {
  constructor(readonly graph: Graph) {}

  moveBeforeTopologicallyValid(toMove: Node, movePoint: Node): boolean {
    return moveBeforeTopologicallyValid(toMove, movePoint);
  }
  moveAfterTopologicallyValid(toMove: Node, movePoint: Node): boolean {
    return moveAfterTopologicallyValid(toMove, movePoint);
  }
  couldMoveBeforeTopologically(toMove: Node, movePoint: Node): boolean {
    return couldMoveBeforeTopologically(toMove, movePoint);
  }
  couldMoveAfterTopologically(toMove: Node, movePoint: Node): boolean {
    return couldMoveAfterTopologically(toMove, movePoint);
  }

  /** True when some in-place node writes `v` (uses it as its first, mutated, argument). */
  hasWriters(v: Value): boolean {
    return v.uses.some((u) => isMutating(u.user) && u.offset === 0);
  }

  isMutating(n: Node): boolean {
    return isMutating(n);
  }
}
