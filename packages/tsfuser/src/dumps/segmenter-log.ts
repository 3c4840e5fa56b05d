// The `segmenter_logging` and `scheduler_verbose` dumps: the decisions behind a segmentation, as
// nvFuser's segmenter and scheduler logs give them — whether one scheduler takes the whole fusion
// (each scheduler's refusal otherwise), the segments made, why each pair of segments stayed apart,
// and per segment each scheduler asked in registry order with its refusal or acceptance.
// Invariant: only reads the TargetCompilation; asks the same registry with the same runtime info
// the plan used, so the accepted scheduler is the one the plan's segment has.

import { valToString, type Fusion, type Val } from '@tsfuser/fusion-ir';
import type { HeuristicDataCache } from '@tsfuser/scheduler';
import type { TargetCompilation } from './compile-for-target.js';

/** `T3` for a tensor, the printer's name (`d0`, `i2`) for a scalar. */
function valName(v: Val): string {
  return v.kind === 'tensorView' ? `T${v.name}` : valToString(v);
}

function choiceLines(c: TargetCompilation, fusion: Fusion, info: TargetCompilation['info'], indent: string, analysis?: HeuristicDataCache): string[] {
  // The segment's own analyses (what its acceptance computed) answer again: nothing is recomputed.
  const r = c.registry.tryPick(fusion, info, analysis);
  const lines = r.rejected.map((x) => `${indent}${x.type}: rejected: ${x.reason}`);
  lines.push(r.scheduler === null ? `${indent}no scheduler accepts it` : `${indent}${r.scheduler.type}: accepted`);
  return lines;
}

export function describeSegmenter(c: TargetCompilation, fusion: Fusion): string {
  const sf = c.segmented;
  const lines = [`Segmenter log (${c.target.device.name}):`, '  whole fusion:', ...choiceLines(c, fusion, c.info, '    ')];
  lines.push(`  ${sf.groups.length} segment${sf.groups.length === 1 ? '' : 's'}:`);
  for (const g of sf.groups) {
    lines.push(`    group ${g.id} (${g.schedulerType}): ${g.exprs.length} expression${g.exprs.length === 1 ? '' : 's'}; inputs ${g.inputs.map(valName).join(', ') || 'none'}; outputs ${g.outputs.map(valName).join(', ')}`);
  }
  if (sf.edges.length > 0) lines.push('  not merged (producer → consumer):');
  for (const e of sf.edges) lines.push(`    group ${e.from} → group ${e.to} via ${valName(e.val)}: ${e.reason}`);
  if (sf.independent.length > 0) lines.push('  not merged (independent):');
  for (const x of sf.independent) lines.push(`    group ${x.a} and group ${x.b}: ${x.reason}`);
  return `${lines.join('\n')}\n`;
}

export function describeSchedulerChoices(c: TargetCompilation): string {
  const lines: string[] = [];
  for (const g of c.plan.groups) {
    const group = c.segments.groups[g.groupId];
    if (group === undefined) continue;
    lines.push(`Scheduling segment ${g.groupId} (${group.outputs.map(valName).join(', ')}):`);
    if (group.schedulerType !== null) lines.push(`  the segmenter chose ${group.schedulerType}; the registry, asked in order:`);
    lines.push(...choiceLines(c, group.fusion, g.info, '  ', group.analysis));
  }
  return `${lines.join('\n')}\n`;
}
