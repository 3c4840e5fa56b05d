// How nvFuser writes its matrix-product and attention exprs (csrc/ir/composite_nodes.cpp
// MatmulOp / LinearOp / SdpaFwdOp / SdpaBwdOp / ScaledMmaOp / GroupedMmaOp ::toString), quirks
// included — LinearOp indents before its ",\n" and ")" (so `T1_g[ … ]  )`), SdpaFwdOp writes
// `dropout_p = ` but `is_causal=`, SdpaBwdOp puts a lone "," line before `scale = `:
//   T2_g[ iS4{i0}, iS5{i3}, rS6{i1} ]
//      = matmul(T0_g[ … ],
//               T1_g[ … ])
//   T5_g[ … ] = ScaledMmaOp(mat1=T0_g[ … ], mat2=T1_g[ … ], scale1=T2_g[ … ], scale2=T3_g[ … ])
//
// Invariant: the text of a kind depends only on that expr.

import type { AttentionExpr } from '../ir/attention-exprs.js';
import type { MatmulExpr } from '../ir/matmul-exprs.js';
import { indentation } from './expr-printer.js';
import { valToInlineString, valToString } from './val-printer.js';

export function matmulExprToString(e: MatmulExpr | AttentionExpr, level: number): string {
  const ind = indentation(level);
  const ind1 = indentation(level + 1);
  const cont = `${ind1}          `;
  switch (e.kind) {
    case 'MatmulOp':
      return `${ind}${valToString(e.out())}\n${ind1} = matmul(${valToString(e.inA())},\n${cont}${valToString(e.inB())})\n`;
    case 'LinearOp': {
      const bias = e.bias();
      let s = `${ind}${valToString(e.out())}\n${ind1} = linear(${valToString(e.inA())},\n${cont}${valToString(e.inB())}`;
      if (bias !== null) s += `${ind1},\n          ${valToString(bias)}`;
      return `${s}${ind1})\n`;
    }
    case 'ScaledMmaOp': {
      const bias = e.bias();
      const args = [`mat1=${valToString(e.matrix1())}`, `mat2=${valToString(e.matrix2())}`, `scale1=${valToString(e.scale1())}`, `scale2=${valToString(e.scale2())}`];
      if (bias !== null) args.push(`bias=${valToString(bias)}`);
      return `${ind}${valToString(e.out())} = ScaledMmaOp(${args.join(', ')})\n`;
    }
    case 'GroupedMmaOp': {
      const offsets = e.offsets();
      const args = [`mat1=${valToString(e.matrix1())}`, `mat2=${valToString(e.matrix2())}`];
      if (offsets !== null) args.push(`offsets=${valToString(offsets)}`);
      return `${ind}${valToString(e.out())} = GroupedMmaOp(${args.join(', ')})\n`;
    }
    case 'SdpaFwdOp': {
      const o = e.sdpaOutputs();
      const i = e.sdpaInputs();
      const lines = [
        `${ind}${valToString(o.output)},`,
        `${ind}${valToString(o.logsumexp)},`,
        `${ind}${valToString(o.philoxSeed)},`,
        `${ind}${valToString(o.philoxOffset)}`,
        `${ind1} = sdpa(${valToString(i.query)},`,
        `${cont}${valToString(i.key)},`,
        `${cont}${valToString(i.value)},`,
      ];
      if (i.bias !== null) lines.push(`${cont}bias=${valToString(i.bias)},`);
      if (i.mask !== null) lines.push(`${cont}mask=${valToString(i.mask)},`);
      lines.push(`${cont}dropout_p = ${valToInlineString(i.dropoutP)},`, `${cont}is_causal=${valToInlineString(i.isCausal)},`);
      if (i.scale !== null) lines.push(`${cont}scale=${valToInlineString(i.scale)},`);
      lines.push(`${ind1})`);
      return `${lines.join('\n')}\n`;
    }
    case 'SdpaBwdOp': {
      const o = e.sdpaOutputs();
      const i = e.sdpaInputs();
      let s =
        `${ind}${valToString(o.gradQuery)},\n${ind}${valToString(o.gradKey)},\n${ind}${valToString(o.gradValue)}\n` +
        `${ind1} = sdpa_bwd(${valToString(i.gradOutput)},\n${cont}${valToString(i.query)},\n${cont}${valToString(i.key)},\n` +
        `${cont}${valToString(i.value)},\n${cont}${valToString(i.output)},\n${cont}logsum_exp = ${valToString(i.logsumexp)},\n` +
        `${cont}dropout_p = ${valToInlineString(i.dropoutP)},\n${cont}is_causal = ${valToInlineString(i.isCausal)},\n` +
        `${cont}philox_seed = ${valToString(i.philoxSeed)},\n${cont}philox_offset = ${valToString(i.philoxOffset)},\n`;
      if (i.scale !== null) s += `${ind1},\n          scale = ${valToInlineString(i.scale)}`;
      return `${s}${ind1})\n`;
    }
    default: {
      const unreachable: never = e;
      throw new Error(`unknown matmul/attention expr ${String(unreachable)}`);
    }
  }
}
