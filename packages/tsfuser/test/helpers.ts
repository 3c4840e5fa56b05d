// Shared test helpers: fixture paths and a captured CLI run.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';

export const FIXTURES = fileURLToPath(new URL('../../../test-fixtures/definitions/', import.meta.url));

export function pythonFixtures(): string[] {
  return readdirSync(FIXTURES).filter((f) => f.endsWith('.py')).sort();
}

export function allFixtures(): string[] {
  return readdirSync(FIXTURES).filter((f) => /\.(py|mjs|js)$/.test(f)).sort();
}

/** Every definition fixture (.py, .mjs, .js) under test-fixtures/definitions/, subfolders included, by relative path. */
export function definitionFixtures(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(FIXTURES, dir), { withFileTypes: true }).flatMap((e) => {
      const rel = dir === '' ? e.name : `${dir}/${e.name}`;
      if (e.isDirectory()) return walk(rel);
      return /\.(py|mjs|js)$/.test(e.name) ? [rel] : [];
    });
  return walk('').sort();
}

export function fixtureText(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: string[], env: Record<string, string> = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    colour: false,
    env,
  });
  return { code, stdout, stderr };
}

/** A python definition of one Float [-1] input returned as is: the host for inputs-line tests. */
export const ONE_INPUT_DEFINITION = [
  'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :',
  '    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)',
  '    fd.add_output(T0)',
  '',
  'with FusionDefinition() as fd:',
  '    nvfuser_fusion_id0(fd)',
  '',
].join('\n');
