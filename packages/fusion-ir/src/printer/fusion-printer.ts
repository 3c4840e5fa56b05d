// Whole-fusion printers in nvFuser's format (the `fusion_ir_presched` / `fusion_ir_math` /
// `fusion_ir` dumps):
//   Inputs:
//     T0_g[ iS0{i0}, iS1{i1} ], float
//   Outputs:
//     T2_g[ iS4{i0}, iS5{i1} ], float
//
//   %kernel_math {
//   …one exprToString per expression, topological order…
//   }
// and the TransformPrinter section, per tensor: its line, `  root domain: (…)` with the exprs to
// the logical domain, `  logical domain: (…)`, `  allocation domain: (…)`, `  contiguity: t n f`,
// the Split/Merge exprs from logical to loop domain, `  loop domain: (…)`.
// Output is deterministic: it depends only on the fusion's structure and names.

import type { Expr } from '../ir/expr.js';
import type { Fusion } from '../ir/fusion.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { TensorView } from '../ir/tensor-view.js';
import type { Val } from '../ir/val.js';
import { exprToString, indentation } from './expr-printer.js';
import { idExprsBetween, usedTensorViews } from './traversal.js';
import { dtypeName, iterDomainToString, valDtype, valToString } from './val-printer.js';

export interface PrintFusionOptions {
  /** Append the TransformPrinter section (nvFuser's `fusion_ir` dump). Default false. */
  transforms?: boolean;
}

/** One `  T0_g[ … ], float` line of an Inputs/Outputs block. */
export function ioLine(v: Val): string {
  return `  ${valToString(v)}, ${dtypeName(valDtype(v))}`;
}

/** The `Inputs:` / `Outputs:` blocks (also used for segments, which pass their own lists). */
export function printInputsOutputs(inputs: readonly Val[], outputs: readonly Val[]): string {
  const lines = ['Inputs:', ...inputs.map(ioLine), 'Outputs:', ...outputs.map(ioLine)];
  return `${lines.join('\n')}\n`;
}

/** The `%kernel_math { … }` block: the given exprs (default: the fusion's math, topologically). */
export function printMath(fusion: Fusion, exprs: readonly Expr[] = fusion.exprs()): string {
  return `%kernel_math {\n${exprs.map((e) => exprToString(e)).join('')}}\n`;
}

/** Inputs, Outputs, a blank line and `%kernel_math`; with `transforms`, the TransformPrinter too. */
export function printFusion(fusion: Fusion, options: PrintFusionOptions = {}): string {
  let text = `${printInputsOutputs(fusion.inputs, fusion.outputs)}\n${printMath(fusion)}`;
  if (options.transforms === true) text += `\n${printTransforms(fusion)}`;
  return text;
}

function domainList(ids: readonly IterDomain[]): string {
  return `(${ids.map(iterDomainToString).join(', ')})`;
}

/** `t`, `f`, or `n` (no contiguity: broadcast and reduction dims) per logical dim. */
export function contiguityString(tv: TensorView): string {
  return tv.domain.contiguity.map((c) => (c === null ? 'n' : c ? 't' : 'f')).join(' ');
}

/** The TransformPrinter lines of one tensor (without the tensor's own line). */
export function printTensorTransforms(tv: TensorView): string {
  const d = tv.domain;
  const lines: string[] = [];
  const exprLine = (e: Expr): string => `${indentation(2)}${exprToString(e).trimEnd()}`;
  if (d.root !== null) {
    lines.push(`${indentation(1)}root domain: ${domainList(d.root)}`);
    lines.push(...idExprsBetween(d.root, d.logical).map(exprLine));
  }
  lines.push(`${indentation(1)}logical domain: ${domainList(d.logical)}`);
  if (d.allocation !== null) lines.push(`${indentation(1)}allocation domain: ${domainList(d.allocation)}`);
  lines.push(`${indentation(1)}contiguity: ${contiguityString(tv)}`);
  lines.push(...idExprsBetween(d.logical, d.loop).map(exprLine));
  lines.push(`${indentation(1)}loop domain: ${domainList(d.loop)}`);
  return `${lines.join('\n')}\n`;
}

/** `TransformPrinter : ` and, for each tensor the outputs depend on, its line and transforms. */
export function printTransforms(fusion: Fusion): string {
  const parts = usedTensorViews(fusion).map((tv) => `${valToString(tv)}\n${printTensorTransforms(tv)}`);
  return `TransformPrinter : \n${parts.join('')}`;
}
