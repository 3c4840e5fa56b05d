// Exact integers from integer tokens: TorchScript sizes, strides and int constants are int64, and
// a JS number holds only integers up to 2^53 exactly. An integer is a `number` when it is a safe
// integer and a `bigint` otherwise, so every value has one canonical form and `===` compares them.
// Invariant: integerFromText never rounds; text outside int64 raises ParseError at the token.

import { ParseError } from '../errors.js';

/** An int64 value: a safe-integer `number`, or a `bigint` only when |value| > 2^53 - 1. */
export type ExactInteger = number | bigint;

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** The canonical ExactInteger of a bigint (a number when it is safe). */
export function canonicalInteger(v: bigint): ExactInteger {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

interface IntegerToken {
  readonly text: string;
  readonly line: number;
  readonly column: number;
}

/** The int64 value of an integer token, or a ParseError naming `what` at the token. */
export function int64FromToken(t: IntegerToken, what: string): bigint {
  const v = BigInt(t.text);
  if (v < INT64_MIN || v > INT64_MAX) throw new ParseError(`${what} ${t.text} does not fit in int64`, t.line, t.column);
  return v;
}

/** At most 15 digits: always a safe integer, so Number() is exact (and much cheaper than BigInt). */
const SHORT_INTEGER = /^-?\d{1,15}$/;

/** The exact value of an integer token as a canonical ExactInteger (int64 range checked). */
export function exactIntegerFromToken(t: IntegerToken, what: string): ExactInteger {
  if (SHORT_INTEGER.test(t.text)) return Number(t.text);
  return canonicalInteger(int64FromToken(t, what));
}

/** A small non-negative count (list size, device index) from an integer token, at most `max`. */
export function boundedIntFromToken(t: IntegerToken, what: string, max: number): number {
  const v = BigInt(t.text);
  if (v < 0n || v > BigInt(max)) throw new ParseError(`${what} must be between 0 and ${max}, found ${t.text}`, t.line, t.column);
  return Number(v);
}
