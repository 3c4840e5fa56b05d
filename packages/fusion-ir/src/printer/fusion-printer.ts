// Whole-fusion printers in nvFuser's formats: `printFusion` (Inputs/Outputs + %kernel_math, the
// `fusion_ir_presched` / `fusion_ir_math` dumps), `printTransforms` (nvFuser's TransformPrinter:
// each tensor with its root/logical domains, contiguity, the Split/Merge exprs and the loop
// domain), and `printKernelLegacy` (the older `%kernel {` layout of the seed exercise).

import { isIterDomainExpr, type Expr } from '../ir/expr.js';
import type { Fusion } from '../ir/fusion.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { TensorView } from '../ir/tensor-view.js';
import type { Val } from '../ir/val.js';
import { exprToString } from './expr-printer.js';
import { dtypeName, iterDomainToString, valToString } from './val-printer.js';

function ioLine(v: Val): string {
  if (v.kind === 'tensorView') return `  ${valToString(v)}, ${dtypeName(v)}`;
  if (v.kind === 'scalar') return `  ${v.symbolicName()}, ${dtypeName(v)}`;
  return `  ${valToString(v)}`;
}

export function printInputsOutputs(fusion: Fusion): string {
  return `Inputs:\n${fusion.inputs.map(ioLine).join('\n')}${fusion.inputs.length ? '\n' : ''}Outputs:\n${fusion.outputs.map(ioLine).join('\n')}${fusion.outputs.length ? '\n' : ''}`;
}

/** The %kernel_math block: one entry per expression, in topological order. */
export function printMath(fusion: Fusion, exprs: readonly Expr[] = fusion.exprs()): string {
  return `%kernel_math {\n${exprs.map(exprToString).join('')}}\n`;
}

export function printFusion(fusion: Fusion, opts: { transforms?: boolean } = {}): string {
  let s = `${printInputsOutputs(fusion)}\n${printMath(fusion)}`;
  if (opts.transforms) s += `\n${printTransforms(fusion)}`;
  return s;
}

function domainList(ids: readonly IterDomain[]): string {
  return `(${ids.map(iterDomainToString).join(', ')})`;
}

/** ID exprs on the way from `from` to `to`, in dependency order. */
export function idExprsBetween(from: readonly IterDomain[], to: readonly IterDomain[]): Expr[] {
  const start = new Set<Val>(from);
  const seen = new Set<Expr>();
  const order: Expr[] = [];
  const visit = (id: Val): void => {
    if (start.has(id)) return;
    const def = id.definition;
    if (def === null || !isIterDomainExpr(def) || seen.has(def)) return;
    seen.add(def);
    for (const input of def.inputs) visit(input);
    order.push(def);
  };
  for (const id of to) visit(id);
  return order;
}

function contiguityString(tv: TensorView): string {
  return tv.domain.contiguity.map((c) => (c === null ? 'n' : c ? 't' : 'f')).join(' ');
}

export function printTransforms(fusion: Fusion): string {
  const lines: string[] = ['TransformPrinter : '];
  for (const tv of fusion.allTvs()) {
    const d = tv.domain;
    lines.push(valToString(tv));
    if (d.root !== null) lines.push(` root domain : ${domainList(d.root)}`);
    if (d.root !== null) for (const e of idExprsBetween(d.root, d.logical)) lines.push(`  ${exprToString(e).trimEnd()}`);
    lines.push(` logical domain : ${domainList(d.logical)}`);
    if (d.allocation !== null) lines.push(` allocation domain : ${domainList(d.allocation)}`);
    lines.push(` contiguity: ${contiguityString(tv)}`);
    for (const e of idExprsBetween(d.logical, d.loop)) lines.push(`  ${exprToString(e).trimEnd()}`);
    lines.push(` loop domain : ${domainList(d.loop)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The older layout the seed exercise shows: `%kernel {` … `}` then a TransformPrinter with root domains. */
export function printKernelLegacy(fusion: Fusion): string {
  const lines: string[] = ['%kernel {'];
  for (const e of fusion.exprs()) lines.push(exprToString(e).trimEnd());
  lines.push('}', '', 'TransformPrinter : ');
  for (const tv of fusion.allTvs()) {
    lines.push(valToString(tv));
    lines.push(` root domain : ${domainList(tv.domain.maybeRoot())}`);
  }
  return `${lines.join('\n')}\n`;
}
