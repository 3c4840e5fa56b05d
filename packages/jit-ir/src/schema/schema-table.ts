// The operator schemas the graph fuser needs, as PyTorch declares them (native_functions.yaml),
// parsed once on first use and indexed by qualified name. Order matters: node.schema() returns
// the first schema that a node matches.

import { parseSchema } from './schema-parser.js';
import type { FunctionSchema } from './function-schema.js';

export const BUILTIN_SCHEMAS: readonly string[] = [
  // binary arithmetic
  'aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor',
  'aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor',
  'aten::add.int(int a, int b) -> int',
  'aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)',
  'aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor',
  'aten::sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor',
  'aten::sub.int(int a, int b) -> int',
  'aten::rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor',
  'aten::rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor',
  'aten::mul.Tensor(Tensor self, Tensor other) -> Tensor',
  'aten::mul.Scalar(Tensor self, Scalar other) -> Tensor',
  'aten::mul.int(int a, int b) -> int',
  'aten::mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)',
  'aten::div.Tensor(Tensor self, Tensor other) -> Tensor',
  'aten::div.Scalar(Tensor self, Scalar other) -> Tensor',
  'aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor',
  'aten::div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)',
  'aten::sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)',
  'aten::pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor',
  'aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor',
  'aten::pow.Scalar(Scalar self, Tensor exponent) -> Tensor',
  'aten::fmod.Scalar(Tensor self, Scalar other) -> Tensor',
  'aten::remainder.Tensor(Tensor self, Tensor other) -> Tensor',
  'aten::maximum(Tensor self, Tensor other) -> Tensor',
  'aten::minimum(Tensor self, Tensor other) -> Tensor',
  'aten::lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor',
  'aten::addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor',
  'aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor',
  // comparisons
  'aten::eq.Tensor(Tensor self, Tensor other) -> Tensor',
  'aten::eq.Scalar(Tensor self, Scalar other) -> Tensor',
  'aten::ne.Tensor(Tensor self, Tensor other) -> Tensor',
  'aten::ne.Scalar(Tensor self, Scalar other) -> Tensor',
  'aten::lt.Tensor(Tensor self, Tensor other) -> Tensor',
  'aten::lt.Scalar(Tensor self, Scalar other) -> Tensor',
  'aten::le.Tensor(Tensor self, Tensor other) -> Tensor',
  'aten::le.Scalar(Tensor self, Scalar other) -> Tensor',
  'aten::gt.Tensor(Tensor self, Tensor other) -> Tensor',
  'aten::gt.Scalar(Tensor self, Scalar other) -> Tensor',
  'aten::ge.Tensor(Tensor self, Tensor other) -> Tensor',
  'aten::ge.Scalar(Tensor self, Scalar other) -> Tensor',
  'aten::lt.int(int a, int b) -> bool',
  'aten::eq.int(int a, int b) -> bool',
  // unary pointwise
  'aten::neg(Tensor self) -> Tensor',
  'aten::abs(Tensor self) -> Tensor',
  'aten::reciprocal(Tensor self) -> Tensor',
  'aten::sqrt(Tensor self) -> Tensor',
  'aten::rsqrt(Tensor self) -> Tensor',
  'aten::exp(Tensor self) -> Tensor',
  'aten::log(Tensor self) -> Tensor',
  'aten::sin(Tensor self) -> Tensor',
  'aten::cos(Tensor self) -> Tensor',
  'aten::erf(Tensor self) -> Tensor',
  'aten::tanh(Tensor self) -> Tensor',
  'aten::sigmoid(Tensor self) -> Tensor',
  'aten::relu(Tensor self) -> Tensor',
  'aten::relu_(Tensor(a!) self) -> Tensor(a!)',
  'aten::silu(Tensor self) -> Tensor',
  'aten::gelu(Tensor self, *, str approximate="none") -> Tensor',
  'aten::gelu_backward(Tensor grad_output, Tensor self, *, str approximate="none") -> Tensor',
  'aten::tanh_backward(Tensor grad_output, Tensor output) -> Tensor',
  'aten::sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor',
  'aten::threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor',
  'aten::threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor',
  'aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor',
  'aten::dropout(Tensor input, float p, bool train) -> Tensor',
  'aten::native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)',
  'aten::native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor',
  'aten::rand_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor',
  // reductions and normalizations
  'aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor',
  'aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor',
  'aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor',
  'aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor',
  'aten::var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor',
  'aten::var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor',
  'aten::std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor',
  'aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor',
  'aten::log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor',
  'aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor',
  'aten::_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor',
  'aten::_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor',
  'aten::layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor',
  'aten::native_layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)',
  'aten::native_layer_norm_backward(Tensor grad_out, Tensor input, int[] normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)',
  'aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor',
  'aten::native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)',
  'aten::native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float eps, bool[3] output_mask) -> (Tensor, Tensor, Tensor)',
  // dtype and device casts
  'aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)',
  'aten::to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)',
  'aten::type_as(Tensor self, Tensor other) -> Tensor',
  // views and shape ops
  'aten::reshape(Tensor(a) self, int[] shape) -> Tensor(a)',
  'aten::view(Tensor(a) self, int[] size) -> Tensor(a)',
  'aten::flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)',
  'aten::squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)',
  'aten::squeeze(Tensor(a) self) -> Tensor(a)',
  'aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)',
  'aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)',
  'aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)',
  'aten::t(Tensor(a) self) -> Tensor(a)',
  'aten::expand(Tensor(a) self, int[] size, *, bool implicit=False) -> Tensor(a)',
  'aten::expand_as(Tensor(a) self, Tensor other) -> Tensor(a)',
  'aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)',
  'aten::cat(Tensor[] tensors, int dim=0) -> Tensor',
  'aten::_grad_sum_to_size(Tensor(a) self, int[]? size) -> Tensor(a)',
  'aten::_size_if_not_equal(int[] self_size, int[] other_size) -> int[]?',
  'aten::size(Tensor self) -> int[]',
  'aten::size.int(Tensor self, int dim) -> int',
  // matrix products and attention (lowered by parseJitIR; the fuser keeps them outside groups)
  'aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor',
  'aten::mm(Tensor self, Tensor mat2) -> Tensor',
  'aten::matmul(Tensor self, Tensor other) -> Tensor',
  'aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor',
  'aten::bmm(Tensor self, Tensor mat2) -> Tensor',
  'aten::baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor',
  'aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor',
  // mutation
  'aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)',
  // prim helpers the fuser queries
  'prim::dtype(Tensor a) -> int',
  'prim::device(Tensor a) -> Device',
];

let parsed: FunctionSchema[] | null = null;
let byName: Map<string, FunctionSchema[]> | null = null;

/** Every built-in schema, parsed, in table order. */
export function builtinSchemas(): readonly FunctionSchema[] {
  if (parsed === null) parsed = BUILTIN_SCHEMAS.map(parseSchema);
  return parsed;
}

/** The built-in schemas with qualified name `name` (e.g. `aten::add`), in table order. */
export function schemasFor(name: string): readonly FunctionSchema[] {
  if (byName === null) {
    byName = new Map();
    for (const s of builtinSchemas()) {
      const list = byName.get(s.name) ?? [];
      list.push(s);
      byName.set(s.name, list);
    }
  }
  return byName.get(name) ?? [];
}
