// How nvFuser writes expressions (Expr::toString of 2023, the format of the issue-785 dumps).
// Tensor ops put the output on its own line and the right-hand side below it:
//   T3_g[ … ]
//      = pow(T1_g[ … ]
//     , double(3));
//   T23_l[ … ]
//      = T0_g[ … ]
//      - T22_l[ … ];
//   T4_g[ … ]
//      = reduction( T0_g[ … ], op = add, initial value = float(0), allreduce = false )
// Scalar ops fit on one line (`d116 = (double)(i17);`), and ID ops are one-liners
// (`Split: iS0{i0} by factor 4 -> iS5{( ceilDiv(i0, 4) )}, iS6{4}`). Every Expr kind is handled
// by one exhaustive switch; the text for a kind never depends on another kind's.

import { FusionIrError } from '../ir/errors.js';
import type { Expr, PadOp } from '../ir/expr.js';
import type { TensorView } from '../ir/tensor-view.js';
import type { Val } from '../ir/val.js';
import { indexingExprToString } from './indexing-printer.js';
import { matmulExprToString } from './matmul-printer.js';
import { reductionOpName } from './op-names.js';
import {
  binaryText,
  dtypeName,
  iterDomainToString,
  scalarExprInline,
  scalarToInlineString,
  scalarToString,
  unaryText,
  valDtype,
  valToInlineString,
  valToString,
} from './val-printer.js';

/** nvFuser's indent(): two spaces per level. */
export function indentation(level: number): string {
  return '  '.repeat(Math.max(0, level));
}

/** True when an expression produces a tensor (nvFuser's ir_utils::isTvOp). */
export function isTensorExpr(expr: Expr): boolean {
  return expr.outputs.some((o) => o.kind === 'tensorView');
}

function firstOutput(expr: Expr): Val {
  const out = expr.outputs[0];
  if (out === undefined) throw new Error(`${expr.kind} ${expr.name} has no outputs`);
  return out;
}

/** Output line, then the ` = ` of a pointwise tensor op one level deeper; scalar ops stay on one line. */
function pointwiseHead(expr: Expr, level: number): { head: string; inner: string } {
  const out = valToString(firstOutput(expr));
  if (!isTensorExpr(expr)) return { head: `${indentation(level)}${out} = `, inner: indentation(level) };
  const inner = indentation(level + 1);
  return { head: `${indentation(level)}${out}\n${inner} = `, inner };
}

/** Pad widths in nvFuser's order: a (left, right) pair per dim from the outermost; ours are torch order. */
function padWidthsNvfuserOrder(expr: PadOp): string[] {
  const out = firstOutput(expr) as TensorView;
  const rank = out.domain.logical.length;
  const widths: string[] = [];
  for (let d = 0; d < rank; d += 1) {
    const pair = rank - 1 - d;
    const left = expr.widths[2 * pair];
    const right = expr.widths[2 * pair + 1];
    widths.push(left === undefined ? '0' : scalarToString(left), right === undefined ? '0' : scalarToString(right));
  }
  return widths;
}

/** One expression in nvFuser's multi-line format, ending with a newline. */
export function exprToString(expr: Expr, level = 0): string {
  const ind = indentation(level);
  switch (expr.kind) {
    case 'UnaryOp': {
      const { head } = pointwiseHead(expr, level);
      return `${head}${unaryText(expr.op, valDtype(expr.in()), valDtype(expr.out()), valToString(expr.in()))};\n`;
    }
    case 'BinaryOp': {
      const { head, inner } = pointwiseHead(expr, level);
      const br = isTensorExpr(expr) ? `\n${inner}` : null;
      return `${head}${binaryText(expr.op, valDtype(expr.out()), valToString(expr.lhs()), valToString(expr.rhs()), br)};\n`;
    }
    case 'TernaryOp': {
      const { head, inner } = pointwiseHead(expr, level);
      const sep = isTensorExpr(expr) ? `\n${inner}, ` : ', ';
      return `${head}${expr.op}(${expr.inputs.map(valToString).join(sep)});\n`;
    }
    case 'ReductionOp':
      return (
        `${ind}${valToString(expr.out())}\n` +
        `${ind}   = reduction( ${valToString(expr.in())}, op = ${reductionOpName(expr.op)}, ` +
        `initial value = ${scalarToString(expr.init)}, allreduce = ${expr.allreduce ? 'true' : 'false'} )\n`
      );
    case 'WelfordOp': {
      const varSum = expr.inVarSum();
      const inputs =
        varSum === null
          ? `${valToString(expr.inAvg())}(Avg), `
          : `${valToString(expr.inAvg())}(Avg)\n  ${valToString(varSum)}(Var)\n  ${valToString(expr.inN())}(Count)`;
      return (
        `${ind}${valToString(expr.outAvg())}(Avg),\n${valToString(expr.outVarSum())}(Var),\n` +
        `${valToString(expr.outN())}(Count)\n = Welford ( ${inputs}\n  allreduce = false )\n`
      );
    }
    case 'BroadcastOp':
      return `${ind}${valToString(expr.out())}\n${ind}   = broadcast( ${valToString(expr.in())} )\n`;
    case 'SqueezeOp':
      return `${ind}${valToString(expr.out())}\n${ind}   = squeeze( ${valToString(expr.in())} )\n`;
    case 'ExpandOp': {
      const extents = expr.expandedExtents().map(scalarToString).join(', ');
      return `${ind}${valToString(expr.out())} = expand( ${valToString(expr.in())}, {${extents}} )\n`;
    }
    case 'ViewOp':
      return `${ind}${valToString(expr.out())} = view( ${valToString(expr.in())} )\n`;
    case 'LoadStoreOp': {
      const out = expr.out() as TensorView;
      const modifier = expr.permutation !== null || out.domain.root !== null ? '.Permute' : '';
      return `${ind}${valToString(out)}\n${indentation(level + 1)} = ${expr.opType}${modifier}( ${valToString(expr.in())} )\n`;
    }
    case 'SliceOp': {
      const ranges = expr.ranges
        .map((r) => ` {${[r.start, r.stop, r.step].map(scalarToString).join(', ')}}`)
        .join('');
      return `${ind}${valToString(expr.out())}\n${ind}   = slice( ${valToString(expr.in())}, {${ranges} } )\n`;
    }
    case 'PadOp':
      return `${ind}${valToString(expr.out())}\n${ind}   = pad( ${valToString(expr.in())}, {${padWidthsNvfuserOrder(expr).join(', ')}} )\n`;
    case 'CatOp':
      return `${ind}${valToString(expr.out())}\n${ind}   = cat( ${expr.inputs.map(valToString).join(', ')}, ${expr.axis} )\n`;
    case 'FullOp': {
      const shape = expr.shape.map(scalarToInlineString).join(', ');
      return `${ind}${valToString(expr.out())}\n${indentation(level + 1)} = full({${shape}}, ${valToInlineString(expr.fillValue)});\n`;
    }
    case 'IotaOp': {
      const args = [expr.length, expr.start, expr.step].map(scalarToString);
      return `${ind}${valToString(expr.out())}\n${indentation(level + 1)} = iota(${args.join(', ')}, ${dtypeName(expr.dtype)});\n`;
    }
    case 'RNGOp': {
      const args = [`{${expr.shape.map(scalarToInlineString).join(', ')}}`, ...expr.parameters.map(scalarToInlineString), dtypeName(expr.dtype)];
      if (expr.seeded) args.push(valToInlineString(expr.seed));
      return `${ind}${valToString(expr.out())}\n${indentation(level + 1)} = rng_${expr.rngOp}(${args.join(', ')});\n`;
    }
    case 'SelectOp':
    case 'IndexSelectOp':
    case 'GatherOp':
    case 'ScatterOp':
    case 'IndexPutAccumulateOp':
    case 'EmbeddingFwdOp':
      return indexingExprToString(expr, level);
    case 'ScanOp': {
      // nvFuser's ScanOp::toString
      const pad = `${indentation(level + 1)}        `;
      return (
        `${ind}${valToString(expr.out())}\n${indentation(level + 1)} = scan(${valToString(expr.in())},\n` +
        `${pad}dim=${expr.dim},\n${pad}op_type=${expr.opType},\n${pad}init=${valToInlineString(expr.init)})\n`
      );
    }
    case 'ArgsortOp':
      return (
        `${ind}${valToString(expr.out())} = argsort( ${valToString(expr.in())}, dim = ${expr.dim}, ` +
        `descending = ${expr.descending ? 'True' : 'False'}, stable = ${expr.stable ? 'True' : 'False'} )\n`
      );
    case 'TopKOp':
      return (
        `${ind}( ${valToString(expr.outValues())}, ${valToString(expr.outIndices())} ) = topk( ${valToString(expr.in())}, ` +
        `${scalarToString(expr.k())}, dim = ${expr.dim}, largest = ${expr.largest ? 'True' : 'False'}, sorted = ${expr.sorted ? 'True' : 'False'} )\n`
      );
    case 'MatmulOp':
    case 'LinearOp':
    case 'ScaledMmaOp':
    case 'GroupedMmaOp':
    case 'SdpaFwdOp':
    case 'SdpaBwdOp':
      return matmulExprToString(expr, level);
    case 'Split':
      return (
        `${ind}${expr.innerSplit ? 'Split' : 'Outer split'}: ${iterDomainToString(expr.in())} by factor ` +
        `${scalarToString(expr.factor)} -> ${iterDomainToString(expr.outer())}, ${iterDomainToString(expr.inner())}\n`
      );
    case 'Merge':
      return `${ind}Merge: ${iterDomainToString(expr.outer())} and ${iterDomainToString(expr.inner())} -> ${iterDomainToString(expr.out())}\n`;
    default: {
      const unreachable: never = expr;
      throw new Error(`exprToString: unknown expression ${String(unreachable)}`);
    }
  }
}

/**
 * A scalar expression's right-hand side with operands inlined, e.g. `ceilDiv(( i0 * i1 ), 4)`
 * (nvFuser's Expr::toInlineString). Tensor and IterDomain exprs have no inline form.
 */
export function exprToInlineString(expr: Expr): string {
  const text = scalarExprInline(expr);
  if (text === null) {
    throw new FusionIrError(`${expr.kind} ${expr.name} produces no scalar and cannot be printed inline`);
  }
  return text;
}
