// How nvFuser writes its indexing exprs (csrc/ir/internal_nodes.cpp and composite_nodes.cpp
// toString): the output on its own line, the right-hand side one level deeper —
//   T2_g[ … ]
//     = select( T0_g[ … ], axis = iS1{i1}, index = i3 )
//     = indexSelect( T0_g[ … ], dim = 0, T3_l[ … ] )
//     = torchGather( T0_g[ … ], dim = 1, T1_g[ … ] )        (gather)
//     = takeAlongAxis( T0_g[ … ], T1_g[ … ], dim = 1 )
//     = scatter(in = T0_g[ … ], dim = 1, src = T2_g[ … ], idx = T1_g[ … ] )
//     = indexPutAccumulate( T0_g[ … ], T1_g[ … ], T2_g[ … ] )
// and embedding over several lines, one keyword per line, as nvFuser's EmbeddingFwdOp.

import type { IndexingExpr } from '../ir/indexing-exprs.js';
import type { IterDomain } from '../ir/iter-domain.js';
import { indentation } from './expr-printer.js';
import { iterDomainToString, scalarToInlineString, valToInlineString, valToString } from './val-printer.js';

export function indexingExprToString(e: IndexingExpr, level: number): string {
  const head = `${indentation(level)}${valToString(e.outputs[0] as IndexingExpr['outputs'][number])}`;
  const rhs = `${indentation(level + 1)} = `;
  switch (e.kind) {
    case 'SelectOp': {
      const axis = e.lookupTv().domain.logicalNoReductions()[e.dim] as IterDomain;
      return `${head}\n${rhs}select( ${valToString(e.lookupTv())}, axis = ${iterDomainToString(axis)}, index = ${valToString(e.indexScalar())} )\n`;
    }
    case 'IndexSelectOp':
      return `${head}\n${rhs}indexSelect( ${valToString(e.lookupTv())}, dim = ${e.dim}, ${valToString(e.indexTv())} )\n`;
    case 'GatherOp':
      return e.exactSizes
        ? `${head}\n${rhs}takeAlongAxis( ${valToString(e.lookupTv())}, ${valToString(e.indexTv())}, dim = ${e.dim} )\n`
        : `${head}\n${rhs}torchGather( ${valToString(e.lookupTv())}, dim = ${e.dim}, ${valToString(e.indexTv())} )\n`;
    case 'ScatterOp':
      return `${head}\n${rhs}scatter(in = ${valToString(e.selfTv())}, dim = ${e.dim}, src = ${valToString(e.src())}, idx = ${valToString(e.indexTv())} )\n`;
    case 'IndexPutAccumulateOp':
      return `${head}\n${rhs}indexPutAccumulate( ${valToString(e.accTv())}, ${valToString(e.indexTv())}, ${valToString(e.valueTv())} )\n`;
    case 'EmbeddingFwdOp': {
      const ind = indentation(level + 1);
      const lines = [`${head},`, `${ind} = embedding(${valToString(e.indexTv())},`, `${ind}          ${valToString(e.weightTv())},`];
      if (e.paddingIdx !== null) lines.push(`${ind}          padding_idx = ${valToString(e.paddingIdx)},`);
      if (e.maxNorm !== null) lines.push(`${ind}          max_norm = ${valToString(e.maxNorm)},`);
      lines.push(`${ind}          norm_type = ${valToString(e.normType)},`);
      lines.push(`${ind}          scale_grad_by_freq = ${valToInlineString(e.scaleGradByFreq)},`);
      lines.push(`${ind}          sparse = ${scalarToInlineString(e.sparse)})`);
      return `${lines.join('\n')}\n`;
    }
    default: {
      const unreachable: never = e;
      throw new Error(`unknown indexing expr ${String(unreachable)}`);
    }
  }
}
