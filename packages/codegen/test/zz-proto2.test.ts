import { it } from 'vitest';
import { persistentReshapeFixtures } from '@tsfuser/test-support';
import { seeded, segmentsWithInputs, lowerWith, runtimeInfoOf } from './shape-ops-simulation.js';

it('dump', () => {
  const fx = persistentReshapeFixtures().find((f) => f.name === (process.env.FX ?? 'softmax_heads_split_from_batch'))!;
  const inputs = fx.inputs(seeded(1));
  const segs = segmentsWithInputs(fx.fusion, inputs);
  for (const s of segs) {
    const sim = lowerWith(s.fusion, runtimeInfoOf(s.fusion, s.inputs));
    console.log(sim.compiled.dumps.cuda);
    console.log(sim.compiled.dumps.fusionIr ?? '');
  }
});
