import { it } from 'vitest';
import { add, Fusion, makeTensor, reshape, sum } from '@tsfuser/fusion-ir';
import { randomTensor, seeded, runtimeInfoOf } from '@tsfuser/test-support';
import { compileFusion } from '../src/index.js';

it('code', () => {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1, -1], dtype: 'Float' });
  const y = makeTensor(f, { shape: [-1], dtype: 'Float' });
  f.addInput(x); f.addInput(y);
  const t = reshape(sum(x, [Number(process.env.D ?? 2)]), [24]);
  f.addOutput(add(t, y));
  const r = seeded(1);
  const inputs = [randomTensor('Float', process.env.D === '0' ? [32, 4, 6] : [4, 6, 32], r), randomTensor('Float', [24], r)];
  const c = compileFusion(f, runtimeInfoOf(f, inputs));
  console.log(c.source.split("\n").filter((l) => !l.startsWith("#") && l.length < 400).slice(-60).join("\n"));
});
it('loops', () => {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1, -1], dtype: 'Float' });
  const y = makeTensor(f, { shape: [-1], dtype: 'Float' });
  f.addInput(x); f.addInput(y);
  const t = reshape(sum(x, [Number(process.env.D ?? 2)]), [24]);
  f.addOutput(add(t, y));
  const r = seeded(1);
  const inputs = [randomTensor('Float', process.env.D === '0' ? [32, 4, 6] : [4, 6, 32], r), randomTensor('Float', [24], r)];
  const c = compileFusion(f, runtimeInfoOf(f, inputs));
  for (const tv of c.scheduledFusion.allTvs()) console.log(tv.toString(), tv.computeAtPosition, tv.domain.loop.map((id) => `${id.name}:${id.parallelType}:${id.isReduction() ? "r" : ""}${id.extent.symbolicName()}`).join(" "), "| logical", tv.domain.logical.map((id) => id.name).join(","));
});
