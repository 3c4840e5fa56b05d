// How nvFuser writes expressions in `%kernel_math`: the output on its own line, then
// `   = op(in …);` — infix ops as `   = a\n    + b;`, calls as `   = pow(a\n  , b);`,
// reductions as `   = reduction( in, op = add, initial value = float(0), allreduce = false )`.
// Scalar-valued expressions print on one line: `d5 = (double)(i3);`.

import { cppTypeName } from '../ir/data-type.js';
import type { Expr } from '../ir/expr.js';
import { inlineBinaryOpString } from '../ir/op-types.js';
import type { Scalar } from '../ir/scalar.js';
import type { Val } from '../ir/val.js';
import { iterDomainToString, scalarToString, valToString } from './val-printer.js';

const IND = '  ';

function head(out: Val): string {
  return `${valToString(out)}\n${IND} = `;
}

function call(name: string, args: readonly Val[]): string {
  const [first, ...rest] = args.map(valToString);
  return `${name}(${first ?? ''}${rest.map((r) => `\n${IND}, ${r}`).join('')})`;
}

function unaryText(op: string, out: Val, input: Val): string {
  const x = valToString(input);
  if (op === 'cast') return `(${cppTypeName(out.kind === 'iterDomain' ? 'Index' : out.dtype)})(${x})`;
  if (op === 'neg') return `-${x}`;
  if (op === 'logical_not') return `!${x}`;
  if (op === 'bitwise_not') return `~${x}`;
  return `${op}(${x})`;
}

function scalarLine(expr: Expr): string | null {
  const out = expr.outputs[0];
  if (out === undefined || out.kind !== 'scalar') return null;
  const name = (out as Scalar).symbolicName();
  switch (expr.kind) {
    case 'UnaryOp':
      return `${name} = ${unaryText(expr.op, out, expr.in())};`;
    case 'BinaryOp': {
      const inline = inlineBinaryOpString(expr.op);
      const [a, b] = [valToString(expr.lhs()), valToString(expr.rhs())];
      return inline !== null ? `${name} = ${a} ${inline} ${b};` : `${name} = ${expr.op}(${a}, ${b});`;
    }
    case 'TernaryOp':
      return `${name} = ${expr.op}(${expr.inputs.map(valToString).join(', ')});`;
    default:
      return null;
  }
}

export function exprToString(expr: Expr): string {
  const scalar = scalarLine(expr);
  if (scalar !== null) return `${scalar}\n`;
  switch (expr.kind) {
    case 'UnaryOp':
      return `${head(expr.out())}${unaryText(expr.op, expr.out(), expr.in())};\n`;
    case 'BinaryOp': {
      const inline = inlineBinaryOpString(expr.op);
      if (inline !== null) {
        return `${head(expr.out())}${valToString(expr.lhs())}\n${IND}${IND}${inline} ${valToString(expr.rhs())};\n`;
      }
      return `${head(expr.out())}${call(expr.op, expr.inputs)};\n`;
    }
    case 'TernaryOp':
      return `${head(expr.out())}${call(expr.op, expr.inputs)};\n`;
    case 'ReductionOp':
      return `${head(expr.out())}reduction( ${valToString(expr.in())}, op = ${expr.op}, initial value = ${scalarToString(expr.init)}, allreduce = ${String(expr.allreduce)} )\n`;
    case 'WelfordOp': {
      const varIn = expr.inVarSum();
      return (
        `${valToString(expr.outAvg())}(Avg),\n${valToString(expr.outVarSum())}(Var),\n${valToString(expr.outN())}(Count)\n` +
        `${IND} = Welford ( ${valToString(expr.inAvg())}(Avg),\n` +
        `${IND}${IND}${varIn === null ? 'double(0)' : valToString(varIn)}(Var),\n` +
        `${IND}${IND}${valToString(expr.inN())}(Count)\n` +
        `${IND}${IND}allreduce = false )\n`
      );
    }
    case 'BroadcastOp':
      return `${head(expr.out())}broadcast( ${valToString(expr.in())}, flags = {${expr.isBroadcastDim.join(', ')}} )\n`;
    case 'SqueezeOp':
      return `${head(expr.out())}squeeze( ${valToString(expr.in())}, flags = {${expr.isSqueezeDim.join(', ')}} )\n`;
    case 'ExpandOp':
      return `${head(expr.out())}expand( ${valToString(expr.in())}, {${expr.expandedExtents().map(valToString).join(', ')}} )\n`;
    case 'ViewOp':
      return `${head(expr.out())}view( ${valToString(expr.in())} )\n`;
    case 'LoadStoreOp': {
      const name = expr.permutation !== null ? 'Set.Permute' : expr.opType;
      const perm = expr.permutation !== null ? `, permutation = {${expr.permutation.join(', ')}}` : '';
      return `${head(expr.out())}${name}( ${valToString(expr.in())}${perm} )\n`;
    }
    case 'SliceOp': {
      const ranges = expr.ranges
        .map((r) => `{${valToString(r.start)} : ${valToString(r.stop)} : ${valToString(r.step)}}`)
        .join(', ');
      return `${head(expr.out())}slice( ${valToString(expr.in())}, {${ranges}} )\n`;
    }
    case 'PadOp':
      return `${head(expr.out())}pad( ${valToString(expr.in())}, {${expr.widths.map(valToString).join(', ')}}, value = ${valToString(expr.value)} )\n`;
    case 'CatOp':
      return `${head(expr.out())}cat( ${expr.inputs.map(valToString).join(', ')}, ${expr.axis} )\n`;
    case 'FullOp':
      return `${head(expr.out())}full({${expr.shape.map(valToString).join(', ')}}, ${valToString(expr.fillValue)})\n`;
    case 'IotaOp':
      return `${head(expr.out())}iota(${valToString(expr.length)}, ${valToString(expr.start)}, ${valToString(expr.step)}, ${cppTypeName(expr.dtype)});\n`;
    case 'Split':
      return `${expr.innerSplit ? 'Split' : 'Outer split'}: ${iterDomainToString(expr.in())} by factor ${valToString(expr.factor).replace(/^int64_t\((.*)\)$/, '$1')} -> ${iterDomainToString(expr.outer())}, ${iterDomainToString(expr.inner())}\n`;
    case 'Merge':
      return `Merge: ${iterDomainToString(expr.outer())} and ${iterDomainToString(expr.inner())} -> ${iterDomainToString(expr.out())}\n`;
    default: {
      const unreachable: never = expr;
      return String(unreachable);
    }
  }
}
