// The nvFuser-tests harness (tools/nvfuser-tests/harness): its Python unit tests of the
// recorder's definition text, the input encodings, the fusion_args output layouts, the pytest
// shim's parametrize expansion and the core / op-family split — run when a Python with torch and
// numpy is found (NVF_HARNESS_PYTHON, /work/torchvenv/bin/python, python3); otherwise skipped
// with a message. Needs no nvFuser checkout and runs no tsfuser (about a second).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..', '..');
const script = join(root, 'tools', 'nvfuser-tests', 'harness', 'test_harness.py');

function pythonWithTorch(): string | undefined {
  const candidates = [process.env['NVF_HARNESS_PYTHON'], '/work/torchvenv/bin/python', 'python3'].filter((p): p is string => p !== undefined && p !== '');
  return candidates.find((p) => {
    try {
      execFileSync(p, ['-c', 'import torch, numpy'], { stdio: 'ignore', timeout: 60_000 });
      return true;
    } catch {
      return false;
    }
  });
}

const python = pythonWithTorch();
if (python === undefined) console.warn('nvfuser-tests-harness: skipped: no Python with torch and numpy (set NVF_HARNESS_PYTHON)');

describe('nvFuser tests harness', () => {
  it.skipIf(python === undefined || !existsSync(script))('its Python unit tests pass', () => {
    const r = spawnSync(python as string, [script], { encoding: 'utf8', timeout: 120_000 });
    const output = `${r.stdout}\n${r.stderr}`;
    expect(output, output).toMatch(/\nOK\b/);
    expect(r.status, output).toBe(0);
  }, 130_000);
});
