// Golden-file comparison shared by every package's dump tests. A golden is rewritten only when
// the caller passes update=true (tests pass `process.env.UPDATE_GOLDEN === '1'`).

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface GoldenResult {
  ok: boolean;
  message: string;
}

export function checkGolden(actual: string, path: string, update: boolean): GoldenResult {
  if (update) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return { ok: true, message: `updated ${path}` };
  }
  if (!existsSync(path)) return { ok: false, message: `golden file ${path} is missing; run with UPDATE_GOLDEN=1 to create it` };
  const expected = readFileSync(path, 'utf8');
  if (expected === actual) return { ok: true, message: 'match' };
  const a = actual.split('\n');
  const e = expected.split('\n');
  const n = Math.max(a.length, e.length);
  for (let i = 0; i < n; i += 1) {
    if (a[i] !== e[i]) {
      return {
        ok: false,
        message: `${path}: first difference at line ${i + 1}\n  expected: ${e[i] ?? '<end of file>'}\n  actual:   ${a[i] ?? '<end of file>'}\n(run with UPDATE_GOLDEN=1 to accept)`,
      };
    }
  }
  return { ok: false, message: `${path}: differs` };
}
