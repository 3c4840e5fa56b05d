// Golden test of the printed seed graph. Regenerate explicitly with:
//   UPDATE_GOLDEN=1 npx vitest run test/golden-seed.test.ts
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseIR } from '../src/index.js';
import { FIXTURE_DIR, readFixture } from './helpers.js';

const GOLDEN = join(FIXTURE_DIR, 'golden', 'seed_exercise1_batch_norm_add_relu.printed.txt');

describe('seed exercise graph', () => {
  it('prints exactly as the golden file', () => {
    const printed = parseIR(readFixture('seed_exercise1_batch_norm_add_relu.ir')).toString();
    if (process.env['UPDATE_GOLDEN'] === '1' || !existsSync(GOLDEN)) writeFileSync(GOLDEN, printed);
    expect(printed).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it('has the structure of the exercise', () => {
    const g = parseIR(readFixture('seed_exercise1_batch_norm_add_relu.ir'));
    expect(g.inputs.length).toBe(11);
    expect(g.nodes().map((n) => n.kind)).toEqual([
      'prim::Constant',
      'prim::Constant',
      'prim::Constant',
      'aten::native_batch_norm',
      'aten::native_batch_norm',
      'aten::add',
      'aten::relu',
    ]);
    const [eps, momentum, training] = g.nodes();
    expect(eps?.f('value')).toBe(1e-5);
    expect(momentum?.f('value')).toBe(0.1);
    expect(training?.i('value')).toBe(0);
    expect(g.nodes()[5]?.schema()?.overloadName).toBe('Tensor');
  });
});
