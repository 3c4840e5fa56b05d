import { it } from 'vitest';
import { runCli } from './helpers.js';
import { FIXTURES } from './helpers.js';
import { join } from 'node:path';
it('scratch', async () => {
  const r = await runCli(['run', join(FIXTURES, process.env.FX ?? 'softmax.py'), '--backend', 'reference', '--dump', process.env.D ?? 'cuda_kernel,segmented_fusion']);
  console.log(r.code, r.stdout.slice(0, Number(process.env.N ?? 6000)), r.stderr);
}, 120000);
