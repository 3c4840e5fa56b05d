// The README's table of the legacy parser's ops is checked against the code: an op marked
// fused (yes / partly) is in supportedJitOps(), one marked "pending RNG" or "no" is not and
// jitOpSupport gives the reason; every test a row names exists and mentions the op (the ops and
// legacy test files contain its name; a traced fixture's graph contains the op's node).
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { supportedJitOps } from '../src/index.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const TRACED = fileURLToPath(new URL('../../../test-fixtures/torchscript/traced/', import.meta.url));
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf("### The legacy parser's op table"), readme.indexOf('## CudaGraphFuser'));

interface Row {
  op: string;
  fused: string;
  note: string;
}

const rows: Row[] = section
  .split('\n')
  .filter((l) => l.startsWith('| `'))
  .map((l) => {
    const [, op, fused, note] = l.split('|').map((c) => c.trim());
    return { op: (op ?? '').replace(/`/g, ''), fused: fused ?? '', note: note ?? '' };
  });

const opsTest = readFileSync(join(ROOT, 'test', 'parse-jit-ir-ops.test.ts'), 'utf8');
const legacyTest = readFileSync(join(ROOT, 'test', 'parse-jit-ir-legacy-ops.test.ts'), 'utf8');
const shortName = (op: string): string => op.slice(op.indexOf('::') + 2);

describe("README: the legacy parser's op table", () => {
  it('has every op once, with a known status', () => {
    expect(rows.length).toBeGreaterThan(100);
    expect(new Set(rows.map((r) => r.op)).size).toBe(rows.length);
    for (const r of rows) expect(['yes', 'partly', 'pending RNG', 'no'], r.op).toContain(r.fused);
  });

  it('agrees with supportedJitOps()', () => {
    const supported = new Set(supportedJitOps());
    for (const r of rows) {
      const fused = r.fused === 'yes' || r.fused === 'partly';
      expect(supported.has(r.op), `${r.op} is marked '${r.fused}'`).toBe(fused);
    }
  });

  it('names tests that exist and exercise the op', () => {
    for (const r of rows) {
      if (r.fused !== 'yes' && r.fused !== 'partly') continue;
      const name = shortName(r.op);
      const named = /\b(ops|traced|legacy)\b/.exec(r.note);
      expect(named, `${r.op}: no test named`).not.toBeNull();
      if (/\bops\b/.test(r.note)) expect(opsTest.includes(name), `${r.op}: not in parse-jit-ir-ops.test.ts`).toBe(true);
      if (/\blegacy\b/.test(r.note)) expect(legacyTest.includes(name), `${r.op}: not in parse-jit-ir-legacy-ops.test.ts`).toBe(true);
      const listed = /traced \(([^)]*)\)/.exec(r.note)?.[1] ?? '';
      const fixtures = listed.split(',').flatMap((part) => /^\s*([a-z_0-9]+)/.exec(part)?.[1] ?? []);
      for (const f of fixtures) {
        const files = ['traced', 'scripted'].map((k) => join(TRACED, `${f}.${k}.ir`)).filter((p) => existsSync(p));
        expect(files.length, `${r.op}: fixture ${f} not found`).toBeGreaterThan(0);
        expect(files.some((p) => readFileSync(p, 'utf8').includes(`${r.op}(`)), `${r.op}: fixture ${f} has no ${r.op} node`).toBe(true);
      }
    }
  });
});
