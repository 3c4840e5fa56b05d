// Reads enum values and struct field lists out of the cuBLASLt headers (cublasLt.h,
// cublas_api.h, library_types.h) as text, so that the values the addon declares can be checked
// without compiling. Used by extract-cublaslt-enums.mjs (which writes native/cublaslt_enums.json)
// and by test/cublaslt-enums.test.ts. Invariant: an enumerator's value is what a C compiler
// gives it — an explicit constant expression over integers and earlier enumerators (`|`, `&`,
// `<<`, `+`, `-`, parentheses), else the previous value plus one; anything else is an error
// naming the enumerator, never a guess.

/** Strips C and C++ comments. */
export function stripComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ');
}

function evaluate(name, expression, known) {
  const cleaned = expression.replace(/0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*/g, (token) => {
    if (/^0[xX]/.test(token) || /^\d/.test(token)) return token.replace(/[uUlL]+$/, '');
    if (!(token in known)) throw new Error(`${name}: unknown identifier ${token} in "${expression}"`);
    return `(${known[token]})`;
  });
  if (!/^[\s0-9a-fA-Fx|&<>+\-()~]*$/.test(cleaned)) throw new Error(`${name}: unsupported expression "${expression}"`);
  const value = Function(`"use strict"; return (${cleaned});`)();
  if (!Number.isInteger(value)) throw new Error(`${name}: "${expression}" is not an integer`);
  return value;
}

/**
 * Every `typedef enum [tag] { … } Name;` and `enum tag { … };` of `text`: a list of
 * { enumName, values: [[enumerator, value], …] } in source order.
 */
export function parseEnums(text, known = {}) {
  const source = stripComments(text);
  const out = [];
  const pattern = /(typedef\s+)?enum\s+([A-Za-z_]\w*)?\s*\{([^}]*)\}\s*([A-Za-z_]\w*)?\s*;/g;
  for (const match of source.matchAll(pattern)) {
    const enumName = match[4] ?? match[2] ?? '(anonymous)';
    const values = [];
    let next = 0;
    for (const raw of match[3].split(',')) {
      const item = raw.trim();
      if (item === '') continue;
      const parts = /^([A-Za-z_]\w*)\s*(?:=\s*([\s\S]+))?$/.exec(item);
      if (parts === null) throw new Error(`enum ${enumName}: cannot read "${item}"`);
      const value = parts[2] === undefined ? next : evaluate(parts[1], parts[2].trim(), known);
      known[parts[1]] = value;
      values.push([parts[1], value]);
      next = value + 1;
    }
    out.push({ enumName, values });
  }
  return out;
}

/** Field list [[type, declarator], …] of `typedef struct [tag] { … } name;` in `text`, or null. */
export function parseTypedefStruct(text, name) {
  const source = stripComments(text);
  const pattern = new RegExp(`typedef\\s+struct\\s*[A-Za-z_]*\\w*\\s*\\{([^}]*)\\}\\s*${name}\\s*;`);
  const match = pattern.exec(source);
  return match === null ? null : parseFields(match[1]);
}

/** Field list of `struct name { … };` (C++ style, as native/cublaslt_api.h declares), or null. */
export function parsePlainStruct(text, name) {
  const source = stripComments(text);
  const match = new RegExp(`struct\\s+${name}\\s*\\{([^}]*)\\}\\s*;`).exec(source);
  return match === null ? null : parseFields(match[1]);
}

function parseFields(body) {
  return body
    .split(';')
    .map((f) => f.trim().replace(/\s+/g, ' '))
    .filter((f) => f !== '')
    .map((f) => {
      const at = f.lastIndexOf(' ');
      return [f.slice(0, at).replace(/\bstd::/g, ''), f.slice(at + 1)];
    });
}

/** `constexpr <type> NAME = value;` lines of native/cublaslt_api.h as { NAME: value }. */
export function parseConstexprValues(text) {
  const out = {};
  for (const match of stripComments(text).matchAll(/constexpr\s+[\w:]+\s+([A-Z][A-Z0-9_]*)\s*=\s*(-?\d+)\s*;/g)) {
    out[match[1]] = Number(match[2]);
  }
  return out;
}

/** The enums and structs the addon relies on, read from an include directory's headers. */
export const WANTED_ENUMS = {
  'library_types.h': ['cudaDataType'],
  'cublas_api.h': ['cublasStatus_t', 'cublasOperation_t', 'cublasComputeType_t'],
  'cublasLt.h': [
    'cublasLtOrder_t',
    'cublasLtMatrixLayoutAttribute_t',
    'cublasLtMatmulDescAttributes_t',
    'cublasLtEpilogue_t',
    'cublasLtMatmulPreferenceAttributes_t',
  ],
};
export const WANTED_STRUCTS = ['cublasLtMatmulAlgo_t', 'cublasLtMatmulHeuristicResult_t'];
