// The two segmentation dumps.
//   segmented_fusion   — nvFuser's layout: groups, edges, then each group's scheduler, inputs,
//                        outputs and math.
//   fusion_ir_segments — (new in tsfuser) the pre-scheduled Fusion IR printed once, each
//                        expression under a banner naming its segment and scheduler, and for
//                        every edge between segments the concrete reason the two sides are not
//                        one kernel; independent segments get the same explanation. expr_eval
//                        (view) and no_op segments are not counted as kernels, nor matmul
//                        segments (a cuBLASLt call each, counted apart); a scatter
//                        segment counts two (the launch plan's copy, then the scatter).

import { exprToString, printInputsOutputs, valToString, type Val } from '@tsfuser/fusion-ir';
import { scatterInitialization } from '../greedy/scatter.js';
import type { SegmentedFusion } from './segment-fusion.js';

const launchesNothing = (type: string): boolean => type === 'expr_eval' || type === 'no_op' || type === 'matmul';

const tName = (v: Val): string => (v.kind === 'tensorView' ? `T${v.name}` : valToString(v));

export function segmentedFusionToString(sf: SegmentedFusion): string {
  const lines: string[] = ['Segmented_Fusion Dump: -- fusion segments:', 'Segmented_Fusion{ ', 'groups: '];
  for (const g of sf.groups) lines.push(`  g{${g.exprs.map((e) => e.name).join(', ')}}`);
  lines.push('edges: ');
  for (const e of sf.edges) {
    const from = sf.groups[e.from];
    const to = sf.groups[e.to];
    lines.push(`  e{ g{${from?.exprs.map((x) => x.name).join(', ') ?? ''}}\n -> g{${to?.exprs.map((x) => x.name).join(', ') ?? ''}}(${valToString(e.val)}) }`);
  }
  lines.push('', 'group details:');
  for (const g of sf.groups) {
    lines.push(`g{(${g.schedulerType})`, ` group id: ${g.id}`, 'inputs:');
    for (const v of g.inputs) lines.push(`  ${valToString(v)} ${v.kind === 'tensorView' ? v.dtype.toLowerCase() : ''}`.trimEnd());
    lines.push('outputs:');
    for (const v of g.outputs) lines.push(`  ${valToString(v)} ${v.kind === 'tensorView' ? v.dtype.toLowerCase() : ''}`.trimEnd());
    lines.push('', '');
    for (const e of g.exprs) lines.push(exprToString(e).trimEnd());
    lines.push('}', '');
  }
  lines.push('} //Segmented_Fusion', '');
  return lines.join('\n');
}

export function fusionIrSegmentsToString(sf: SegmentedFusion): string {
  const n = sf.groups.length;
  // expr_eval (views) and no_op segments launch nothing.
  // A scatter segment launches two: the copy of its input into the output, then the scatter.
  const scatterCopy = (g: SegmentedFusion['groups'][number]): boolean => g.schedulerType === 'greedy' && scatterInitialization(g.fusion) !== null;
  // The backward of an attention segment launches three kernels (preprocess, main, dQ convert).
  const attentionBackward = sf.groups.filter((g) => g.schedulerType === 'attention' && g.exprs.some((e) => e.kind === 'SdpaBwdOp')).length;
  const kernels = sf.groups.filter((g) => !launchesNothing(g.schedulerType)).length + sf.groups.filter(scatterCopy).length + 2 * attentionBackward;
  const gemms = sf.groups.filter((g) => g.schedulerType === 'matmul').length;
  const calls = gemms === 0 ? '' : `, ${gemms} cuBLASLt call${gemms === 1 ? '' : 's'}`;
  const lines: string[] = [
    `Fusion IR with segments: ${n} segment${n === 1 ? '' : 's'} (${kernels} kernel${kernels === 1 ? '' : 's'}${calls}), ${sf.edges.length} edge${sf.edges.length === 1 ? '' : 's'}`,
    '',
    printInputsOutputs(sf.original.inputs, sf.original.outputs).trimEnd(),
    '',
    '%kernel_math {',
  ];
  for (const g of sf.groups) {
    const ins = g.inputs.filter((v) => v.kind === 'tensorView').map(tName).join(', ');
    const outs = g.outputs.map(tName).join(', ');
    const note =
      g.schedulerType === 'expr_eval'
        ? ' (views of its inputs, no kernel)'
        : g.schedulerType === 'matmul'
          ? ' (one cuBLASLt GEMM with its fused epilogue, no kernel)'
          : g.schedulerType === 'attention'
            ? g.exprs.some((e) => e.kind === 'SdpaBwdOp')
              ? ' (generated flash-attention backward: preprocess, main and dQ convert kernels)'
              : ' (a generated flash-attention forward kernel)'
          : scatterCopy(g)
            ? ' (a copy kernel of its input into the output, then the scatter kernel)'
            : '';
    lines.push(`// ======== segment ${g.id} [${g.schedulerType}] — reads ${ins === '' ? 'nothing' : ins}; writes ${outs}${note} ========`);
    for (const e of g.exprs) lines.push(exprToString(e).trimEnd());
  }
  lines.push('}', '');
  if (sf.edges.length === 0 && sf.independent.length === 0) {
    lines.push(n <= 1 ? 'One segment: a single scheduler accepts the whole fusion.' : 'No edges between segments.');
  }
  if (sf.edges.length > 0) {
    lines.push('Segment boundaries (why each edge is a global-memory round trip):');
    for (const e of sf.edges) {
      const a = sf.groups[e.from];
      const b = sf.groups[e.to];
      lines.push(`  ${tName(e.val)} (segment ${e.from} [${a?.schedulerType ?? '?'}] → segment ${e.to} [${b?.schedulerType ?? '?'}]): ${e.reason}`);
    }
  }
  if (sf.independent.length > 0) {
    lines.push('Independent segments (separate kernels):');
    for (const p of sf.independent) {
      lines.push(`  segment ${p.a} [${sf.groups[p.a]?.schedulerType ?? '?'}] and segment ${p.b} [${sf.groups[p.b]?.schedulerType ?? '?'}]: ${p.reason}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
