// NVFUSER_DUMP / TSFUSER_DUMP in fd.execute (issue 38's host path): the environment is read at a
// definition's first execute and remembered — a cached execute reads no process.env — and
// `dumpsFromEnvironment: 'reread'` reads it again (and remembers that); a new definition reads
// it at its own first execute; a bad name rejects every execute until it is fixed; `false`
// ignores it. Reference backend, captured debug output.
import { afterEach, describe, expect, it } from 'vitest';
import { loadDefinition } from '../src/cli/load-definition.js';
import { planInputs } from '../src/cli/run-inputs.js';
import type { DefinitionExecuteOptions } from '../src/definition/execution-state.js';
import type { FusionDefinition } from '../src/definition/fusion-definition.js';
import { FIXTURES } from './helpers.js';

const saved = { NVFUSER_DUMP: process.env['NVFUSER_DUMP'], TSFUSER_DUMP: process.env['TSFUSER_DUMP'] };

function setDump(value: string | undefined): void {
  if (value === undefined) delete process.env['NVFUSER_DUMP'];
  else process.env['NVFUSER_DUMP'] = value;
}

afterEach(() => {
  setDump(saved.NVFUSER_DUMP);
  if (saved.TSFUSER_DUMP === undefined) delete process.env['TSFUSER_DUMP'];
  else process.env['TSFUSER_DUMP'] = saved.TSFUSER_DUMP;
});

async function softmax(): Promise<{ definition: FusionDefinition; run: (options?: DefinitionExecuteOptions) => Promise<string> }> {
  const { definition, inputs } = await loadDefinition('softmax.py', FIXTURES);
  const planned = planInputs(definition.inputs(), inputs, { seed: 0, cwd: FIXTURES }).inputs;
  const run = async (options: DefinitionExecuteOptions = {}): Promise<string> => {
    await definition.execute(planned, { backend: 'reference', captureDebugOutput: true, ...options });
    return definition.debugOutput() ?? '';
  };
  return { definition, run };
}

const INDEX_TYPE = 'nvfuser_inner_persistent_f0_c1_r0_g0: Index type: int\n';

describe('dump options from the environment', () => {
  it('are read at the first execute of a definition and remembered; reread reads them again', async () => {
    delete process.env['TSFUSER_DUMP'];
    setDump(undefined);
    const a = await softmax();
    expect(await a.run()).toBe('');
    setDump('index_type');
    // Remembered from the first execute: the change is not seen by this definition...
    expect(await a.run()).toBe('');
    // ...until it rereads, which is then remembered.
    expect(await a.run({ dumpsFromEnvironment: 'reread' })).toBe(INDEX_TYPE);
    setDump(undefined);
    expect(await a.run()).toBe(INDEX_TYPE);
    expect(await a.run({ dumpsFromEnvironment: false })).toBe('');
    // A new definition reads the environment at its own first execute.
    setDump('index_type');
    const b = await softmax();
    expect(await b.run()).toBe(INDEX_TYPE);
    // The call's own dumps are added to the environment's.
    expect(await b.run({ dump: new Set(['launch_param']) })).toMatch(/^nvfuser_inner_persistent_f0_c1_r0_g0: Index type: int\nLaunch Parameters: /);
  });

  it('a bad name rejects every execute (nothing is remembered) until the variable is fixed', async () => {
    setDump('kernel_soup');
    const a = await softmax();
    await expect(a.run()).rejects.toThrow("unknown dump option 'kernel_soup' in NVFUSER_DUMP");
    await expect(a.run()).rejects.toThrow("unknown dump option 'kernel_soup' in NVFUSER_DUMP");
    setDump('index_type');
    expect(await a.run()).toBe(INDEX_TYPE);
  });
});
