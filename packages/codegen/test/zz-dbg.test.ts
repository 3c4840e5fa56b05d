import { it } from 'vitest';
import { defaultSchedulerRegistry } from '@tsfuser/scheduler';
import { randomReductionReshapeCase, runtimeInfoOf } from '@tsfuser/test-support';
it('dbg', () => {
  for (const s of (process.env.SEEDS ?? '').split(',')) {
    const c = randomReductionReshapeCase(Number(s));
    const v = defaultSchedulerRegistry().get('reduction').canSchedule(c.fusion, runtimeInfoOf(c.fusion, c.inputs));
    console.log(s, c.description, v);
    for (const e of c.fusion.exprs()) console.log('  ', e.kind, e.inputs.map((i) => i.name).join(','), '->', e.outputs.map((i) => i.name).join(','));
  }
});
