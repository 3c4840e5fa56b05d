// The operand checks PyTorch's TorchScript interpreter makes on host (scalar and shape) ops,
// with its messages, so runGraph raises where PyTorch raises instead of answering quietly:
// c10::maybe_wrap_dim for aten::size(x, d), the list bounds of aten::__getitem__, int floordiv's
// division by zero, Tensor::item<int64_t>'s overflow check (aten::Int of a tensor) and
// checkDoubleInRange for aten::Int of a float (PyTorch 2.x casts nan there to INT64_MIN, undefined
// behaviour of the C++ cast; it is refused here with the message PyTorch's floor/ceil give).
// Invariant: each function returns the value PyTorch computes or throws one Error whose message
// starts with 'runGraph: <op>: ' and carries PyTorch's own wording.

/** c10::maybe_wrap_dim(dim, rank, wrap_scalar=false), as Tensor::size(dim) calls it. */
export function wrapDim(op: string, dim: number, rank: number): number {
  if (!Number.isInteger(dim)) throw new Error(`runGraph: ${op}: the dimension must be an int, got ${dim}`);
  if (rank === 0) throw new Error(`runGraph: ${op}: Dimension specified as ${dim} but tensor has no dimensions`);
  if (dim < -rank || dim > rank - 1) {
    throw new Error(`runGraph: ${op}: Dimension out of range (expected to be in range of [${-rank}, ${rank - 1}], but got ${dim})`);
  }
  return dim < 0 ? dim + rank : dim;
}

/** getItem of register_ops_utils.h: a negative index counts from the end. */
export function listIndex(op: string, index: number, length: number): number {
  if (!Number.isInteger(index)) throw new Error(`runGraph: ${op}: list indices must be integers, got ${index}`);
  const i = index < 0 ? index + length : index;
  if (i < 0 || i >= length) throw new Error(`runGraph: ${op}: list index out of range (index ${index}, a list of ${length})`);
  return i;
}

/** floordiv(int, int) of register_ops_utils.h: Python's rounding down; 0 is refused. */
export function floordivInt(op: string, a: number, b: number): number {
  if (b === 0) throw new Error(`runGraph: ${op}: ZeroDivisionError: division by 0 (${a} // ${b})`);
  return Math.floor(a / b);
}

/** std::to_string(double): fixed notation with 6 decimals ("nan", "inf", "-inf" as C prints them). */
function cppToString(a: number): string {
  if (Number.isNaN(a)) return 'nan';
  if (!Number.isFinite(a)) return a > 0 ? 'inf' : '-inf';
  if (Math.abs(a) < 1e21) return a.toFixed(6);
  return `${BigInt(a).toString()}.000000`;
}

/** checkDoubleInRange, then the truncation aten::Int.float does. */
export function floatToInt(op: string, a: number): number {
  // 2^63 is exactly representable; int64 max (2^63 - 1) rounds up to it as a double.
  if (Number.isNaN(a) || !Number.isFinite(a) || a >= 2 ** 63 || a < -(2 ** 63)) {
    throw new Error(`runGraph: ${op}: Cannot convert float ${cppToString(a)} to integer`);
  }
  return Math.trunc(a);
}

/** Tensor::item<int64_t>() (aten::Int.Tensor): c10's checked conversion refuses nan, inf and overflow. */
export function tensorItemToInt(op: string, a: number): number {
  if (Number.isNaN(a) || !Number.isFinite(a) || a >= 2 ** 63 || a < -(2 ** 63)) {
    throw new Error(`runGraph: ${op}: value cannot be converted to type int64_t without overflow (${a})`);
  }
  return Math.trunc(a);
}
