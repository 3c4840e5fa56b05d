// A small mutational fuzzer for TorchScript graph text: seeded by real graphs, it deletes,
// duplicates, swaps and inserts tokens, wraps types in deep nesting, nests blocks, swaps numbers
// for huge or odd ones and injects odd characters and line ends.
// Invariant: mutate(seed text, rng) is a pure function of its inputs; the same seed gives the
// same case, so a failure is rebuilt from (FUZZ_SEED, case index) alone.

/** mulberry32: a tiny deterministic PRNG returning floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of case `index` of a run seeded with `runSeed` (each case stands alone). */
export function caseSeed(runSeed: number, index: number): number {
  return (Math.imul(runSeed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(index + 1, 0xc2b2ae35)) >>> 0;
}

type Rng = () => number;

const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)] as T;
}

const TOKENS = [
  '(', ')', '[', ']', '{', '}', ',', ':', '=', '?', '*', '->', '!', '|', '.', '<', '>', '%', '%x', '%1', '%x.1', '%0',
  ' ', '\n', '\r', '\r\n', '\t', '#', '# f.py:1:2', '"', "'", '"\\n"', '"\\q"', '\\', 'graph', 'return', 'block0():', 'block1',
  'with', 'prim::If', 'prim::Loop', 'prim::Constant', 'prim::Constant[value=1]()', 'aten::add', 'aten::relu', 'prim::FusionGroup_0',
  'Tensor', 'Float(', 'Float(2, 3)', 'Float(*, *)', 'int', 'int[]', 'int[3]', 'str', 'string', 'NoneType', 'Device', 'Optional[', 'Tuple[',
  'List[', 'strides=[', 'device=cuda:0', 'device=cuda:', 'device=cpu', 'device=tpu', 'requires_grad=1', 'requires_grad=7', 'value=', 'types=[',
  '<Tensor>', 'inf', 'nan', '-inf',
];

const NUMBERS = [
  '0', '-0', '1', '-1', '9007199254740991', '9007199254740993', '9223372036854775807', '9223372036854775808', '-9223372036854775808',
  '-9223372036854775809', '99999999999999999999999999999999', '1e308', '1e999', '-1e999', '1.', '.5', '1e', '0x10', '1_000', '00012', '4294967296',
  '2147483648', '127', '128', '-5',
];

const ODD_CHARS = ['\0', '\u0007', '\u001b', '\u007f', '\u00a0', '\u2028', '\u2029', '\ufeff', '\ufffd', '\ud800', '\u{1f600}', '\u0301', '$', '@', '`', '~', '&', '^', ';'];

/** `depth` nested prim::If nodes (no outputs) that each take `%c`; valid when %c is defined. */
function nestedBlocks(depth: number, cond: string): string {
  const lines: string[] = [];
  for (let i = 0; i < depth; i++) lines.push(`${'  '.repeat(i + 1)} = prim::If(${cond})`, `${'  '.repeat(i + 2)}block0():`);
  for (let i = depth - 1; i >= 0; i--) lines.push(`${'  '.repeat(i + 3)}-> ()`);
  return lines.join('\n') + '\n';
}

type Mutation = (text: string, rng: Rng, donors: readonly string[]) => string;

function span(text: string, rng: Rng): [number, number] {
  const start = int(rng, 0, text.length);
  return [start, Math.min(text.length, start + int(rng, 1, rng() < 0.8 ? 12 : 200))];
}

function insertAt(text: string, rng: Rng, piece: string): string {
  const at = int(rng, 0, text.length);
  return text.slice(0, at) + piece + text.slice(at);
}

const MUTATIONS: readonly (readonly [string, Mutation])[] = [
  ['delete', (t, rng) => {
    const [a, b] = span(t, rng);
    return t.slice(0, a) + t.slice(b);
  }],
  ['duplicate', (t, rng) => {
    const [a, b] = span(t, rng);
    return t.slice(0, b) + t.slice(a, b) + t.slice(b);
  }],
  ['insert token', (t, rng) => insertAt(t, rng, pick(rng, TOKENS))],
  ['insert odd char', (t, rng) => insertAt(t, rng, pick(rng, ODD_CHARS))],
  ['replace char', (t, rng) => {
    const at = int(rng, 0, Math.max(0, t.length - 1));
    return t.slice(0, at) + pick(rng, [...TOKENS, ...ODD_CHARS]) + t.slice(at + 1);
  }],
  ['swap number', (t, rng) => {
    const numbers = [...t.matchAll(/-?\d+(\.\d*)?(e-?\d+)?/g)];
    if (numbers.length === 0) return insertAt(t, rng, pick(rng, NUMBERS));
    const m = pick(rng, numbers);
    const at = m.index ?? 0;
    return t.slice(0, at) + pick(rng, NUMBERS) + t.slice(at + m[0].length);
  }],
  ['deep type', (t, rng) => {
    const types = [...t.matchAll(/: ([A-Za-z]+)/g)];
    const m = types.length > 0 ? pick(rng, types) : null;
    const at = m === null ? int(rng, 0, t.length) : (m.index ?? 0) + 2;
    const depth = pick(rng, [2, 50, 255, 256, 257, 1000, 3000, 9000]);
    const style = int(rng, 0, 4);
    if (style === 0) return `${t.slice(0, at)}${'Optional['.repeat(depth)}int${']'.repeat(depth)}${t.slice(at + (m?.[1]?.length ?? 0))}`;
    if (style === 1) return `${t.slice(0, at)}${'Tuple['.repeat(depth)}int${']'.repeat(depth)}${t.slice(at + (m?.[1]?.length ?? 0))}`;
    if (style === 2) return `${t.slice(0, at)}${'('.repeat(depth)}int${')'.repeat(depth)}${t.slice(at + (m?.[1]?.length ?? 0))}`;
    if (style === 3) return `${t.slice(0, at)}int${'[]'.repeat(depth)}${t.slice(at + (m?.[1]?.length ?? 0))}`;
    return `${t.slice(0, at)}int${'?'.repeat(depth)}${t.slice(at + (m?.[1]?.length ?? 0))}`;
  }],
  ['deep blocks', (t, rng) => {
    const input = /graph\((%[\w.]+)/.exec(t)?.[1] ?? '%x';
    const at = t.indexOf('  return');
    const depth = pick(rng, [1, 3, 100, 255, 256, 257, 1400]);
    return at < 0 ? insertAt(t, rng, nestedBlocks(depth, input)) : t.slice(0, at) + nestedBlocks(depth, input) + t.slice(at);
  }],
  ['line ends', (t, rng) => {
    const eol = pick(rng, ['\r', '\r\n', '\n\n', '\n \n', '\r\r\n']);
    return rng() < 0.5 ? t.replace(/\n/g, eol) : t.replace('\n', eol);
  }],
  ['bom', (t, rng) => (rng() < 0.7 ? `\ufeff${t}` : insertAt(t, rng, '\ufeff'))],
  ['swap lines', (t, rng) => {
    const lines = t.split('\n');
    const i = int(rng, 0, lines.length - 1);
    const j = int(rng, 0, lines.length - 1);
    [lines[i], lines[j]] = [lines[j] as string, lines[i] as string];
    return lines.join('\n');
  }],
  ['truncate', (t, rng) => t.slice(0, int(rng, 0, t.length))],
  ['splice donor line', (t, rng, donors) => {
    const donorLines = pick(rng, donors).split('\n');
    const lines = t.split('\n');
    lines.splice(int(rng, 0, lines.length), 0, pick(rng, donorLines));
    return lines.join('\n');
  }],
  ['many values', (t, rng) => {
    const n = pick(rng, [100, 1000, 5000]);
    const at = t.indexOf('return (');
    if (at < 0) return t;
    const input = /graph\((%[\w.]+)/.exec(t)?.[1] ?? '%x';
    return `${t.slice(0, at + 'return ('.length)}${Array.from({ length: n }, () => input).join(', ')}, ${t.slice(at + 'return ('.length)}`;
  }],
];

export interface MutatedCase {
  readonly text: string;
  /** The mutations applied, in order (for failure messages). */
  readonly steps: readonly string[];
}

/** Applies 1-4 random mutations to a randomly chosen seed text. */
export function mutate(seeds: readonly string[], rng: Rng): MutatedCase {
  let text = pick(rng, seeds);
  const steps: string[] = [];
  const count = int(rng, 1, 4);
  for (let i = 0; i < count; i++) {
    const [name, fn] = pick(rng, MUTATIONS);
    steps.push(name);
    text = fn(text, rng, seeds);
  }
  return { text, steps };
}
