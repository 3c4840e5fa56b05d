// Golden-file comparison for every package's dump tests. A golden file is written only when the
// caller asks for it (tests pass `process.env.UPDATE_GOLDEN === '1'`); otherwise a missing file
// or any difference is a failure whose `diff` shows the changed lines with context.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface GoldenCheck {
  ok: boolean;
  /** Empty when ok; otherwise what differs (a line diff) or why the check could not run. */
  diff: string;
}

/** Compares `actual` with the file at `path`, or (re)writes the file when `update` is true. */
export function checkGolden(actual: string, path: string, update: boolean): GoldenCheck {
  if (update) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return { ok: true, diff: '' };
  }
  if (!existsSync(path)) {
    return { ok: false, diff: `golden file ${path} does not exist; run the test with UPDATE_GOLDEN=1 to create it` };
  }
  const expected = readFileSync(path, 'utf8');
  if (expected === actual) return { ok: true, diff: '' };
  return {
    ok: false,
    diff: `${path} differs (- golden, + actual; run with UPDATE_GOLDEN=1 to accept):\n${lineDiff(expected, actual)}`,
  };
}

type DiffLine = { tag: ' ' | '-' | '+'; text: string };

/** Longest-common-subsequence line diff; beyond this many cells, fall back to a plain listing. */
const MAX_LCS_CELLS = 4_000_000;

function diffLines(a: readonly string[], b: readonly string[]): DiffLine[] {
  // Common prefix and suffix first: goldens usually differ in a few lines.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const out: DiffLine[] = a.slice(0, start).map((text) => ({ tag: ' ', text }));
  if (midA.length * midB.length > MAX_LCS_CELLS) {
    out.push(...midA.map((text): DiffLine => ({ tag: '-', text })), ...midB.map((text): DiffLine => ({ tag: '+', text })));
  } else {
    const n = midA.length;
    const m = midB.length;
    // lcs[i][j] = LCS length of midA[i..] and midB[j..], flattened.
    const lcs = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i -= 1) {
      for (let j = m - 1; j >= 0; j -= 1) {
        lcs[i * (m + 1) + j] =
          midA[i] === midB[j]
            ? (lcs[(i + 1) * (m + 1) + j + 1] as number) + 1
            : Math.max(lcs[(i + 1) * (m + 1) + j] as number, lcs[i * (m + 1) + j + 1] as number);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        out.push({ tag: ' ', text: midA[i] as string });
        i += 1;
        j += 1;
      } else if (i < n && (j === m || (lcs[(i + 1) * (m + 1) + j] as number) >= (lcs[i * (m + 1) + j + 1] as number))) {
        // Deletions before insertions, as unified diffs show a replaced line.
        out.push({ tag: '-', text: midA[i] as string });
        i += 1;
      } else {
        out.push({ tag: '+', text: midB[j] as string });
        j += 1;
      }
    }
  }
  out.push(...a.slice(endA).map((text): DiffLine => ({ tag: ' ', text })));
  return out;
}

/** A unified-style diff of two texts with 3 lines of context and `@@ line N @@` hunk headers. */
export function lineDiff(expected: string, actual: string, context = 3): string {
  const lines = diffLines(expected.split('\n'), actual.split('\n'));
  const changed = lines.map((l) => l.tag !== ' ');
  const keep = lines.map((_, k) => {
    for (let d = -context; d <= context; d += 1) if (changed[k + d] === true) return true;
    return false;
  });
  const out: string[] = [];
  let expectedLine = 1;
  let inHunk = false;
  lines.forEach((l, k) => {
    if (keep[k] === true) {
      if (!inHunk) out.push(`@@ golden line ${expectedLine} @@`);
      inHunk = true;
      out.push(`${l.tag} ${l.text}`);
    } else {
      inHunk = false;
    }
    if (l.tag !== '+') expectedLine += 1;
  });
  return out.join('\n');
}
