// The .npy header: the magic and version preamble, and the Python dict literal after it, parsed
// and checked as NumPy's format.read_array_header does. The dict must have exactly the keys
// 'descr', 'fortran_order' and 'shape' (NumPy refuses an extra or a missing key: "Header does not
// contain the correct keys"), fortran_order must be a bool and shape a tuple of non-negative ints.
// Invariant: a header either parses into exactly those three fields or is one NpyError naming
// what is wrong; the preamble is read from at most the first 12 bytes, so a streamed reader can
// parse it before reading anything else.

export class NpyError extends Error {
  override readonly name = 'NpyError';
}

export const NPY_MAGIC: readonly number[] = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

/** NumPy's default max_header_size: longer headers are refused as unsafe to parse. */
export const NPY_MAX_HEADER_BYTES = 10000;

export interface NpyPreamble {
  major: number;
  /** Byte offset of the header dict. */
  headerStart: number;
  headerLength: number;
}

export interface NpyHeader {
  descr: string;
  fortranOrder: boolean;
  shape: number[];
}

/** The preamble of `bytes` (the first 10 or 12 bytes of the file); `fileLength` checks the header fits. */
export function parseNpyPreamble(bytes: Uint8Array, fileLength: number): NpyPreamble {
  if (bytes.length < 10 || NPY_MAGIC.some((m, i) => bytes[i] !== m)) throw new NpyError('not a .npy file (bad magic)');
  const major = bytes[6] as number;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let preamble: NpyPreamble;
  if (major === 1) {
    preamble = { major, headerStart: 10, headerLength: view.getUint16(8, true) };
  } else if (major === 2 || major === 3) {
    if (bytes.length < 12) throw new NpyError('truncated header');
    preamble = { major, headerStart: 12, headerLength: view.getUint32(8, true) };
  } else {
    throw new NpyError(`unsupported .npy version ${major}`);
  }
  if (preamble.headerStart + preamble.headerLength > fileLength) {
    throw new NpyError(`truncated header: it claims ${preamble.headerLength} bytes, the file has ${fileLength - preamble.headerStart}`);
  }
  if (preamble.headerLength > NPY_MAX_HEADER_BYTES) {
    throw new NpyError(`header of ${preamble.headerLength} bytes is longer than NumPy's max_header_size (${NPY_MAX_HEADER_BYTES}); NumPy refuses it as unsafe to parse`);
  }
  return preamble;
}

/** `other`: a number or None, which no wanted key accepts but an extra key may hold (NumPy's
 * literal_eval reads it, then refuses the key set). */
type Literal = { kind: 'str'; value: string } | { kind: 'bool'; value: boolean } | { kind: 'tuple'; items: string[] } | { kind: 'other'; text: string };

/** A cursor over the dict literal; every syntax error names the offset. */
class LiteralReader {
  private pos = 0;
  constructor(private readonly text: string) {}

  fail(what: string): never {
    throw new NpyError(`malformed header ${JSON.stringify(this.text.trim())}: ${what} at offset ${this.pos}`);
  }

  skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos] as string)) this.pos += 1;
  }

  peek(): string {
    this.skipSpace();
    return this.text[this.pos] ?? '';
  }

  expect(c: string): void {
    if (this.peek() !== c) this.fail(`expected '${c}'`);
    this.pos += 1;
  }

  atEnd(): boolean {
    this.skipSpace();
    return this.pos >= this.text.length;
  }

  string(): string {
    const quote = this.peek();
    if (quote !== "'" && quote !== '"') this.fail('expected a string');
    const end = this.text.indexOf(quote, this.pos + 1);
    if (end < 0) this.fail('unterminated string');
    const s = this.text.slice(this.pos + 1, end);
    this.pos = end + 1;
    return s;
  }

  literal(): Literal {
    const c = this.peek();
    if (c === "'" || c === '"') return { kind: 'str', value: this.string() };
    if (c === '(') {
      this.pos += 1;
      const items: string[] = [];
      while (this.peek() !== ')') {
        const m = /^[0-9A-Za-z_+-]+/.exec(this.text.slice(this.pos));
        if (m === null) this.fail('expected an integer in the shape tuple');
        items.push(m[0]);
        this.pos += m[0].length;
        if (this.peek() === ',') this.pos += 1;
        else if (this.peek() !== ')') this.fail("expected ',' or ')'");
      }
      this.pos += 1;
      return { kind: 'tuple', items };
    }
    for (const word of ['True', 'False'] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return { kind: 'bool', value: word === 'True' };
      }
    }
    const other = /^(?:None\b|[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)?[jJ]?)/.exec(this.text.slice(this.pos));
    if (other !== null) {
      this.pos += other[0].length;
      return { kind: 'other', text: other[0] };
    }
    return this.fail('expected a string, a bool, a number, None or a tuple');
  }
}

function shapeOf(items: readonly string[]): number[] {
  return items.map((s) => {
    const n = Number(s.replace(/L$/, ''));
    if (!/^\d+L?$/.test(s) || !Number.isSafeInteger(n)) throw new NpyError(`shape is not valid: bad shape entry '${s}' (expected a non-negative integer below 2^53)`);
    return n;
  });
}

/** Parses the header dict as NumPy does (exact key set, typed values). */
export function parseNpyHeader(text: string): NpyHeader {
  const r = new LiteralReader(text);
  const entries = new Map<string, Literal>();
  r.expect('{');
  while (r.peek() !== '}') {
    const key = r.string();
    r.expect(':');
    if (entries.has(key)) r.fail(`duplicate key '${key}'`);
    entries.set(key, r.literal());
    if (r.peek() === ',') r.expect(',');
    else if (r.peek() !== '}') r.fail("expected ',' or '}'");
  }
  r.expect('}');
  if (!r.atEnd()) r.fail('text after the dict');
  const keys = [...entries.keys()];
  const wanted = ['descr', 'fortran_order', 'shape'];
  if (keys.length !== wanted.length || !wanted.every((k) => entries.has(k))) {
    throw new NpyError(`Header does not contain the correct keys: [${keys.map((k) => `'${k}'`).join(', ')}] (NumPy requires exactly 'descr', 'fortran_order' and 'shape')`);
  }
  const descr = entries.get('descr') as Literal;
  const fortran = entries.get('fortran_order') as Literal;
  const shape = entries.get('shape') as Literal;
  if (descr.kind !== 'str') throw new NpyError('descr is not a valid dtype descriptor (expected a string)');
  if (fortran.kind !== 'bool') throw new NpyError('fortran_order is not a valid bool');
  if (shape.kind !== 'tuple') throw new NpyError('shape is not valid: expected a tuple of integers');
  return { descr: descr.value, fortranOrder: fortran.value, shape: shapeOf(shape.items) };
}

/** The header of a C-order array (version 1.0, padded to 64 bytes as NumPy writes it). */
export function npyHeaderBytes(descr: string, sizes: readonly number[]): Uint8Array {
  const shape = sizes.length === 1 ? `(${sizes[0]},)` : `(${sizes.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const unpadded = 10 + header.length + 1;
  header += ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const out = new Uint8Array(10 + header.length);
  out.set(NPY_MAGIC, 0);
  out[6] = 1;
  out[7] = 0;
  new DataView(out.buffer).setUint16(8, header.length, true);
  for (let i = 0; i < header.length; i += 1) out[10 + i] = header.charCodeAt(i);
  return out;
}
