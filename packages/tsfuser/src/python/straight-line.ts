// The top level of a repro script as straight-line Python: statements run in order (the bodies
// of top-level `with` and `for` statements inline, once), and each use of a name reads the
// binding that name has at that point. Every assignment gets its own SSA name (`x@2` for x's
// second binding) and the names in its value are rewritten to the SSA names current before it,
// so `x = x.contiguous()` reads the earlier x, `y = x.t(); x = torch.randn(5, 7)` leaves y the
// transpose of the first x, and `a = b; b = a` is an undefined name, never a cycle.
// `fd.execute(inputs)` reads its argument as bound at the call.
// Invariant: a rewritten expression only names SSA bindings made before it, so resolving names
// always terminates.

import type { Expr, Keyword, Stmt } from './ast.js';

export interface StraightLine {
  /** The value of an SSA name (undefined: unbound, or bound by a form not evaluated, e.g. a tuple). */
  lookup(name: string): Expr | undefined;
  /** What fd.execute(...) receives: the first call's argument as bound there, else the last `inputs`. */
  inputs: Expr | null;
}

/** The name as the user wrote it (an SSA name without its `@k`). */
export function sourceName(id: string): string {
  const at = id.indexOf('@');
  return at < 0 ? id : id.slice(0, at);
}

function renameKeyword(k: Keyword, current: ReadonlyMap<string, string>): Keyword {
  return { ...k, value: rename(k.value, current) };
}

/** `e` with each name replaced by its current SSA name (names never assigned stay as they are). */
function rename(e: Expr, current: ReadonlyMap<string, string>): Expr {
  switch (e.kind) {
    case 'name': {
      const ssa = current.get(e.id);
      return ssa === undefined ? e : { ...e, id: ssa };
    }
    case 'number':
    case 'string':
      return e;
    case 'list':
    case 'tuple':
      return { ...e, elements: e.elements.map((x) => rename(x, current)) };
    case 'attribute':
      return { ...e, object: rename(e.object, current) };
    case 'call':
      return { ...e, func: rename(e.func, current), args: e.args.map((x) => rename(x, current)), keywords: e.keywords.map((k) => renameKeyword(k, current)) };
    case 'subscript':
      return { ...e, object: rename(e.object, current), index: rename(e.index, current) };
    case 'unary':
      return { ...e, operand: rename(e.operand, current) };
    case 'binary':
      return { ...e, left: rename(e.left, current), right: rename(e.right, current) };
    case 'starred':
      return { ...e, value: rename(e.value, current) };
    default: {
      const never: never = e;
      return never;
    }
  }
}

/** The argument of the first `….execute(arg)` call inside `e`, or null. */
function executeArgument(e: Expr): Expr | null {
  if (e.kind === 'call') {
    if (e.func.kind === 'attribute' && e.func.attr === 'execute' && e.args[0] !== undefined) return e.args[0];
    return executeArgument(e.func) ?? e.args.map(executeArgument).find((x) => x !== null) ?? null;
  }
  if (e.kind === 'subscript' || e.kind === 'attribute') return executeArgument(e.object);
  return null;
}

/** The names an assignment target binds (`x`, `a, b`, `a, *rest`). */
function targetNames(target: Expr): string[] {
  if (target.kind === 'name') return [target.id];
  if (target.kind === 'tuple' || target.kind === 'list') return target.elements.flatMap(targetNames);
  if (target.kind === 'starred') return targetNames(target.value);
  return [];
}

/** Runs the top-level statements of `stmts` as straight-line code (see the file header). */
export function straightLine(stmts: readonly Stmt[]): StraightLine {
  const current = new Map<string, string>();
  const defs = new Map<string, Expr>();
  const counts = new Map<string, number>();
  let executed: Expr | null = null;
  const bind = (name: string, value: Expr | null): void => {
    const k = (counts.get(name) ?? 0) + 1;
    counts.set(name, k);
    const ssa = `${name}@${k}`;
    if (value !== null) defs.set(ssa, value);
    current.set(name, ssa);
  };
  const noteExecute = (e: Expr): void => {
    if (executed !== null) return;
    const arg = executeArgument(e);
    if (arg !== null) executed = rename(arg, current);
  };
  const run = (body: readonly Stmt[]): void => {
    for (const s of body) {
      switch (s.kind) {
        case 'assign': {
          noteExecute(s.value);
          const value = rename(s.value, current);
          if (s.target.kind === 'name') bind(s.target.id, value);
          else for (const name of targetNames(s.target)) bind(name, null);
          break;
        }
        case 'expr':
          noteExecute(s.expr);
          break;
        case 'with':
          for (const item of s.items) if (item.asName !== null) bind(item.asName, null);
          run(s.body);
          break;
        case 'for':
          for (const name of targetNames(s.target)) bind(name, null);
          run(s.body);
          break;
        case 'def':
          bind(s.name, null);
          break;
        case 'import':
        case 'pass':
        case 'return':
          break;
        default: {
          const never: never = s;
          throw new Error(`unknown statement ${String(never)}`);
        }
      }
    }
  };
  run(stmts);
  const lastInputs = current.get('inputs');
  const inputsName = lastInputs === undefined || !defs.has(lastInputs) ? null : (defs.get(lastInputs) as Expr);
  return { lookup: (name) => defs.get(name), inputs: executed ?? inputsName };
}
