// Parses operator schema strings, as in native_functions.yaml / torch.ops:
//   aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
//   aten::native_batch_norm(Tensor input, Tensor? weight, ...) -> (Tensor, Tensor, Tensor)
//   aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
// Invariant: malformed schemas raise ParseError (line 1, the offending column).

import { describeToken, tokenize } from '../text/lexer.js';
import { TokenCursor } from '../text/cursor.js';
import { MAX_TYPE_NESTING, parseTypeAt } from '../types/type-parser.js';
import { int64FromToken } from '../text/integers.js';
import type { FunctionSchema, SchemaArgument, SchemaDefault, SchemaReturn } from './function-schema.js';

export function parseSchema(text: string): FunctionSchema {
  const cur = new TokenCursor(tokenize(text));
  const nameTok = cur.expectKind('qualified', 'a qualified operator name such as aten::add');
  let overloadName = '';
  if (cur.acceptPunct('.')) overloadName = cur.expectKind('ident', 'an overload name after "."').text;
  cur.expectPunct('(', 'to open the argument list');
  const args: SchemaArgument[] = [];
  let kwargOnly = false;
  let isVararg = false;
  if (!cur.isPunct(')')) {
    do {
      if (cur.isPunct('*')) {
        const star = cur.next();
        if (kwargOnly) cur.fail("'*' appears twice in the argument list", star);
        kwargOnly = true;
        continue;
      }
      if (cur.isPunct('.')) {
        for (let i = 0; i < 3; i++) cur.expectPunct('.', "in '...'");
        isVararg = true;
        continue;
      }
      if (isVararg) cur.fail("no arguments may follow '...'");
      args.push(parseArgument(cur, kwargOnly));
    } while (cur.acceptPunct(','));
  }
  cur.expectPunct(')', 'to close the argument list');
  cur.expectPunct('->', 'before the return types');
  const { returns, returnsTuple } = parseReturns(cur);
  const end = cur.peek();
  if (end.kind !== 'newline' && end.kind !== 'eof') cur.fail(`unexpected ${describeToken(end)} after the return types`, end);
  return { name: nameTok.text, overloadName, arguments: args, returns, isVararg, returnsTuple };
}

function parseArgument(cur: TokenCursor, kwargOnly: boolean): SchemaArgument {
  const { type, alias } = parseTypeAt(cur, true);
  const name = cur.expectKind('ident', 'an argument name').text;
  let defaultValue: SchemaDefault | null = null;
  if (cur.acceptPunct('=')) defaultValue = parseDefault(cur);
  return { name, type, alias, defaultValue, kwargOnly };
}

/** `depth` counts the default lists open around this value (nesting is limited like types). */
function parseDefault(cur: TokenCursor, depth = 0): SchemaDefault {
  const t = cur.next();
  switch (t.kind) {
    case 'int':
      return { kind: 'int', value: int64FromToken(t, 'integer default') };
    case 'float':
      return { kind: 'float', value: t.value };
    case 'string':
      return { kind: 'str', value: t.value };
    case 'ident':
      if (t.text === 'True' || t.text === 'False') return { kind: 'bool', value: t.text === 'True' };
      if (t.text === 'None') return { kind: 'none' };
      if (t.text === 'inf' || t.text === 'nan') return { kind: 'float', value: t.text === 'inf' ? Infinity : NaN };
      return { kind: 'name', value: t.text };
    case 'punct':
      if (t.text === '[') {
        if (depth + 1 >= MAX_TYPE_NESTING) cur.fail(`default list nesting deeper than ${MAX_TYPE_NESTING}`, t);
        const items: SchemaDefault[] = [];
        if (!cur.isPunct(']')) {
          do {
            items.push(parseDefault(cur, depth + 1));
          } while (cur.acceptPunct(','));
        }
        cur.expectPunct(']', 'to close the default list');
        return { kind: 'list', items };
      }
      return cur.fail(`expected a default value but found ${describeToken(t)}`, t);
    case 'qualified':
    case 'value':
    case 'newline':
    case 'eof':
      return cur.fail(`expected a default value but found ${describeToken(t)}`, t);
  }
}

function parseReturns(cur: TokenCursor): { returns: SchemaReturn[]; returnsTuple: boolean } {
  if (!cur.isPunct('(')) return { returns: [parseReturn(cur)], returnsTuple: false };
  cur.next();
  const returns: SchemaReturn[] = [];
  if (!cur.isPunct(')')) {
    do {
      returns.push(parseReturn(cur));
    } while (cur.acceptPunct(','));
  }
  cur.expectPunct(')', 'to close the return list');
  return { returns, returnsTuple: true };
}

function parseReturn(cur: TokenCursor): SchemaReturn {
  const { type, alias } = parseTypeAt(cur, true);
  const t = cur.peek();
  if (t.kind === 'ident') {
    cur.next();
    return { name: t.text, type, alias };
  }
  return { name: null, type, alias };
}
