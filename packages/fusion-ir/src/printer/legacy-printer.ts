// The older nvFuser layout (PyTorch's torch/csrc/jit/codegen/cuda, ~2022) that the seed exercise
// shows for `fusion->print()` after parseJitIR:
//   %kernel {
//   …exprs…
//
//   TransformPrinter :
//   T0_g[ iS0{i0}, iS1{i2} ]
//    root domain : (iS0{i0},iS1{i2})
//   }
// Domains are comma-joined without spaces; a tensor with a root domain also lists the exprs to
// and the ` rfactor domain : (…)` (its logical domain); Split/Merge exprs to the loop domain follow.

import type { Expr } from '../ir/expr.js';
import type { Fusion } from '../ir/fusion.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { TensorView } from '../ir/tensor-view.js';
import { exprToString } from './expr-printer.js';
import { idExprsBetween, usedTensorViews } from './traversal.js';
import { iterDomainToString, valToString } from './val-printer.js';

function legacyDomain(ids: readonly IterDomain[]): string {
  return `(${ids.map(iterDomainToString).join(',')})`;
}

function legacyTensorTransforms(tv: TensorView): string {
  const d = tv.domain;
  const exprLine = (e: Expr): string => `  ${exprToString(e)}`;
  let text = ` root domain : ${legacyDomain(d.maybeRoot())}\n`;
  if (d.root !== null) {
    text += idExprsBetween(d.root, d.logical).map(exprLine).join('');
    text += ` rfactor domain : ${legacyDomain(d.logical)}\n`;
  }
  text += idExprsBetween(d.logical, d.loop).map(exprLine).join('');
  return text;
}

/** `%kernel {` math, a blank line, the legacy TransformPrinter, `}`. */
export function printKernelLegacy(fusion: Fusion): string {
  const math = fusion.exprs().map((e) => exprToString(e)).join('');
  const transforms = usedTensorViews(fusion)
    .map((tv) => `${valToString(tv)}\n${legacyTensorTransforms(tv)}`)
    .join('');
  return `%kernel {\n${math}\nTransformPrinter : \n${transforms}}\n`;
}
