// Mutational fuzzer for the python definition importer: takes real definitions (the fixture
// files) and damages them the way hostile or careless input does — tokens deleted, duplicated,
// swapped or renamed; odd and huge literals; deep bracket, prefix-operator and `+` chains; stray
// control characters, BOMs and CR/CRLF line endings; lines deleted, duplicated or re-indented;
// truncation; and new `fd.ops.*` calls of random ops with random argument values (every op of the
// op table, its real keywords, values of every python kind) inserted into the definition. Every choice draws from one seeded Random, so a (seed, case) pair replays exactly.
//
// Invariant: mutate() is a pure function of its seed text and the Random's state.

import { allOps } from '../src/index.js';
import { Random } from '../src/io/random.js';

/** A mutated text and the mutations applied to it (for failure messages). */
export interface Mutant {
  readonly text: string;
  readonly steps: readonly string[];
}

const LEXEME = /\s+|[A-Za-z_]\w*|\d[\w.]*(?:[eE][+-]?\d+)?|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[\s\S]/g;

const ODD_LITERALS = [
  '0', '-1', '-2', '1e309', '-1e309', '1e300', '2.5', '-0.0', '.5', '5.', '1_000', '0x7fffffffffffffff', '9007199254740993',
  '99999999999999999999999', '2**63', '10**400', '2**-1', '1//0', '1%0', 'True', 'None', '"ab"', "''", '[]', '[[]]', '()', '(1,)',
  'float("nan")', 'float("-inf")', '-float("inf")', 'float("x")', 'float()', 'DataType.Null', 'DataType.Bogus', 'torch.float16',
  'torch.uint8', 'torch.nonsense', 'fd', 'fd.ops', 'T0', 'T0.size(0)', 'T0.shape()', 'T0.ndim', '1e', '0b101', '1j',
];

const ODD_CHARS = ['\r', '\r\n', '\n', '\t', '\u00a0', '\x00', '\x7f', '\ufeff', '\u2028', '"', "'", '"""', '#', '\\', '\\\n', '(', ')', '[', ']', '{', ':', '=', ',', '.', ' ', '    ', '@', '$', '?', '!', '`', '🔥'];

const NAMES = [
  'fd', 'ops', 'define_tensor', 'define_scalar', 'define_vector', 'add_output', 'shape', 'contiguity', 'dtype', 'is_cpu', 'stride_order',
  'dims', 'keepdim', 'new_shape', 'broadcast_dims', 'start_indices', 'end_indices', 'strides', 'manual_normalization', 'squeeze_expanded',
  'manual_padding', 'sum', 'add', 'mul', 'cast', 'reshape', 'slice', 'cat', 'squeeze', 'permute', 'broadcast_in_dim', 'var_mean', 'size',
  'DataType', 'torch', 'float', 'None', 'True', 'False', 'def', 'with', 'for', 'return', 'pass', 'import', 'lambda', 'as', 'in', 'inputs',
  'execute', 'FusionDefinition',
];

const DEPTHS = [1, 2, 50, 199, 200, 201, 999, 1000, 1001, 1200, 2000];

function pick<T>(rng: Random, xs: readonly T[]): T {
  return xs[rng.int(0, xs.length)] as T;
}

function lexemes(text: string): string[] {
  return text.match(LEXEME) ?? [];
}

/** Indices of lexemes that are not whitespace. */
function solid(lx: readonly string[]): number[] {
  const out: number[] = [];
  lx.forEach((l, i) => {
    if (!/^\s+$/.test(l)) out.push(i);
  });
  return out;
}

type Mutation = (text: string, rng: Random) => { text: string; step: string };

const onToken =
  (name: string, f: (lx: string[], i: number, rng: Random) => string): Mutation =>
  (text, rng) => {
    const lx = lexemes(text);
    const ids = solid(lx);
    if (ids.length === 0) return { text, step: `${name}: no token` };
    const i = pick(rng, ids);
    const step = `${name} ${JSON.stringify(lx[i])}@${i}: ${f(lx, i, rng)}`;
    return { text: lx.join(''), step };
  };

const onLine =
  (name: string, f: (lines: string[], i: number, rng: Random) => string): Mutation =>
  (text, rng) => {
    const lines = text.split('\n');
    const i = rng.int(0, lines.length);
    const step = `${name} line ${i + 1}: ${f(lines, i, rng)}`;
    return { text: lines.join('\n'), step };
  };

const MUTATIONS: readonly Mutation[] = [
  onToken('delete', (lx, i) => {
    lx[i] = '';
    return '';
  }),
  onToken('duplicate', (lx, i) => {
    lx[i] = `${lx[i] as string}${lx[i] as string}`;
    return '';
  }),
  onToken('swap', (lx, i, rng) => {
    const ids = solid(lx);
    const j = pick(rng, ids);
    const t = lx[i] as string;
    lx[i] = lx[j] as string;
    lx[j] = t;
    return `with @${j}`;
  }),
  onToken('literal', (lx, i, rng) => {
    lx[i] = pick(rng, ODD_LITERALS);
    return lx[i];
  }),
  onToken('rename', (lx, i, rng) => {
    lx[i] = pick(rng, NAMES);
    return lx[i];
  }),
  onToken('nest', (lx, i, rng) => {
    const depth = pick(rng, DEPTHS);
    const [open, close] = pick(rng, [['(', ')'], ['[', ']'], ['[', ','], ['(', ',)']] as const);
    lx[i] = `${open.repeat(depth)}${lx[i] as string}${close.repeat(depth)}`;
    return `${open}×${depth}`;
  }),
  onToken('prefix', (lx, i, rng) => {
    const depth = pick(rng, DEPTHS);
    lx[i] = `${pick(rng, ['-', '+', '- ', '-+'] as const).repeat(depth)}${lx[i] as string}`;
    return `×${depth}`;
  }),
  onToken('chain', (lx, i, rng) => {
    const depth = pick(rng, DEPTHS);
    const [op, operand] = pick(rng, [[' + ', '1'], ['*', '2'], ['.', 'x'], ['', '()'], ['', '[0]'], ['**', '1']] as const);
    lx[i] = `${lx[i] as string}${`${op}${operand}`.repeat(depth)}`;
    return `${op}${operand}×${depth}`;
  }),
  (text, rng) => {
    const at = rng.int(0, text.length + 1);
    const c = pick(rng, ODD_CHARS);
    return { text: text.slice(0, at) + c + text.slice(at), step: `insert ${JSON.stringify(c)} at ${at}` };
  },
  (text, rng) => {
    const at = rng.int(0, text.length + 1);
    return { text: text.slice(0, at), step: `truncate at ${at}` };
  },
  (text, rng) => {
    const form = pick(rng, ['\r', '\r\n', 'bom', 'bom+\r'] as const);
    const body = form.endsWith('\r') ? text.replace(/\n/g, '\r') : form === '\r\n' ? text.replace(/\n/g, '\r\n') : text;
    return { text: form.startsWith('bom') ? `\ufeff${body}` : body, step: `line endings ${JSON.stringify(form)}` };
  },
  onLine('delete', (lines, i) => {
    lines.splice(i, 1);
    return '';
  }),
  onLine('duplicate', (lines, i) => {
    lines.splice(i, 0, lines[i] as string);
    return '';
  }),
  onLine('indent', (lines, i, rng) => {
    const by = pick(rng, ['', ' ', '  ', '        ', '\t', ' \t'] as const);
    lines[i] = by + (lines[i] as string).trimStart();
    return JSON.stringify(by);
  }),
  onLine('swap', (lines, i, rng) => {
    const j = rng.int(0, lines.length);
    const t = lines[i] as string;
    lines[i] = lines[j] as string;
    lines[j] = t;
    return `with ${j + 1}`;
  }),
];

const VALUE_ATOMS = ['fd', 'None', 'True', 'False', '0', '1', '-1', '2', '3', '-7', '2.5', '1e300', '-1e309', 'float("nan")', '"tanh"', '"none"', '"x"', 'DataType.Float', 'DataType.Int', 'DataType.Bool', 'DataType.Null', 'torch.half'];

/** A random python value: a name the definition defines, an atom, or a (possibly nested) list of them. */
function randomValue(rng: Random, names: readonly string[], depth = 0): string {
  if (depth < 2 && rng.uniform() < 0.3) {
    const n = rng.int(0, 5);
    return `[${Array.from({ length: n }, () => randomValue(rng, names, depth + 1)).join(', ')}]`;
  }
  return names.length > 0 && rng.uniform() < 0.5 ? pick(rng, names) : pick(rng, VALUE_ATOMS);
}

/** `    Tz = fd.ops.<op>(…)` with random positional and keyword arguments, inserted after a random line. */
const randomOpCall: Mutation = (text, rng) => {
  const ops = allOps();
  const spec = pick(rng, ops);
  const names = [...new Set(text.match(/\b[TSV]\d+\b/g) ?? [])];
  const positional = rng.uniform() < 0.1 ? spec.params.length + 1 : rng.int(0, spec.params.length + 1);
  const parts: string[] = [];
  for (let i = 0; i < positional; i += 1) parts.push(randomValue(rng, names));
  for (const p of spec.params.slice(positional)) if (rng.uniform() < 0.8) parts.push(`${p.python}=${randomValue(rng, names)}`);
  const call = `    Tz = fd.ops.${spec.python}(${parts.join(', ')})\n    fd.add_output(Tz)`;
  const lines = text.split('\n');
  // Inside the definition: before a random `add_output` line, or after the first indented line.
  const outputs = lines.flatMap((l, i) => (/^\s+fd\.add_output\(/.test(l) ? [i] : []));
  const at = outputs.length > 0 ? pick(rng, outputs) : Math.max(0, lines.findIndex((l) => /^\s+\S/.test(l)) + 1);
  lines.splice(Math.min(at, lines.length), 0, call);
  return { text: lines.join('\n'), step: `op call ${call.trim().split('\n')[0] as string}` };
};

/** 1–3 mutations of `seed`. */
export function mutate(seed: string, rng: Random): Mutant {
  let text = seed;
  const steps: string[] = [];
  const count = rng.int(1, 4);
  for (let k = 0; k < count; k += 1) {
    const r = (rng.uniform() < 0.25 ? randomOpCall : pick(rng, MUTATIONS))(text, rng);
    text = r.text;
    steps.push(r.step);
  }
  return { text, steps };
}
