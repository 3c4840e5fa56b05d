// parseJitIR op by op: small graphs for every lowering (overloads, constant and runtime scalar
// operands, broadcasting, type promotion, Half/BFloat16/int/bool dtypes, optional arguments),
// each differential against the test's aten reference with fresh random inputs.
import { describe, expect, it } from 'vitest';
import type { Graph } from '@tsfuser/jit-ir';
import { HostTensor, evaluate } from '@tsfuser/fusion-ir';
import { parseJitIR } from '../src/index.js';
import { differentialCheck, type DiffOptions } from './helpers/differential.js';
import { graphOf, tensorType as T } from './helpers/ir-builder.js';

interface Case {
  graph: () => Graph;
  opts?: DiffOptions;
}

const X = (dtype = 'Float', ...sizes: number[]): string => `%x : ${T(dtype, ...(sizes.length > 0 ? sizes : [3, 4]))}`;
const Y = (dtype = 'Float', ...sizes: number[]): string => `%y : ${T(dtype, ...(sizes.length > 0 ? sizes : [3, 4]))}`;

/** `%o = <call>` over %x (and %y when `binary`) with constants declared first. */
function oneOp(call: string, opts: { inputs?: string[]; consts?: string; out?: string } = {}): () => Graph {
  return () => graphOf(opts.inputs ?? [X()], `${opts.consts ?? ''}\n%o : Tensor = ${call}`, [opts.out ?? 'o']);
}

const CONSTS = `
%one : int = prim::Constant[value=1]()
%two : int = prim::Constant[value=2]()
%m1 : int = prim::Constant[value=-1]()
%half : float = prim::Constant[value=0.5]()
%f25 : float = prim::Constant[value=2.5]()
%true : bool = prim::Constant[value=1]()
%false : bool = prim::Constant[value=0]()
%none : NoneType = prim::Constant()
%trunc : str = prim::Constant[value="trunc"]()
%floor : str = prim::Constant[value="floor"]()
%tanh : str = prim::Constant[value="tanh"]()
%d0 : int[] = prim::Constant[value=[0]]()
%d1 : int[] = prim::Constant[value=[1]]()
%dm1 : int[] = prim::Constant[value=[-1]]()
%empty : int[] = prim::Constant[value=[]]()
%f16 : int = prim::Constant[value=5]()
%f32 : int = prim::Constant[value=6]()
%i64 : int = prim::Constant[value=4]()
%b8 : int = prim::Constant[value=11]()
%eps : float = prim::Constant[value=1.0000000000000001e-05]()
%mom : float = prim::Constant[value=0.10000000000000001]()
%ns : int[] = prim::Constant[value=[4, 5]]()
%sz : int[] = prim::Constant[value=[2, 3, 5]]()
%zero : int = prim::Constant[value=0]()
%sq : int[] = prim::Constant[value=[1, -1]]()
%cuda : Device = prim::Constant[value="cuda:0"]()
%nonestr : str = prim::Constant[value="none"]()`;

const XY = [X(), Y()];
const c = (call: string, inputs: string[] = [X()], opts?: DiffOptions): Case => ({ graph: oneOp(call, { inputs, consts: CONSTS }), opts });

const UNARY = [
  'exp2', 'erfc', 'round', 'sign', 'frac', 'isnan', 'isinf', 'isfinite', 'logical_not',
  'exp', 'log', 'sqrt', 'rsqrt', 'sigmoid', 'tanh', 'relu', 'reciprocal', 'erf', 'sin', 'cos', 'tan', 'log1p', 'expm1',
  'log2', 'log10', 'silu', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'neg', 'abs', 'ceil', 'floor', 'trunc',
];

const CASES: Record<string, Case> = {
  ...Object.fromEntries(UNARY.map((u) => [`aten::${u}`, c(`aten::${u}(%x)`)])),
  'aten::exp of Long computes in Float': c('aten::exp(%x)', [X('Long')]),
  'aten::relu of Half': c('aten::relu(%x)', [X('Half')]),
  'aten::neg of Int keeps Int': c('aten::neg(%x)', [X('Int')]),
  'aten::add alpha 2': c('aten::add(%x, %y, %two)', XY),
  'aten::add alpha 0.5': c('aten::add(%x, %y, %half)', XY),
  'aten::add Scalar with alpha': c('aten::add(%x, %f25, %two)'),
  'aten::add runtime int alpha': c('aten::add(%x, %y, %a)', [...XY, '%a : int']),
  'aten::sub Scalar': c('aten::sub(%x, %half, %one)'),
  'aten::rsub alpha 2': c('aten::rsub(%x, %y, %two)', XY),
  'aten::mul by runtime float': c('aten::mul(%x, %s)', [X(), '%s : float']),
  'aten::mul Long by 2 stays Long': c('aten::mul(%x, %two)', [X('Long')]),
  'aten::mul Long by 2.5 is Float': c('aten::mul(%x, %f25)', [X('Long')]),
  'aten::mul Half by Float promotes': c('aten::mul(%x, %y)', [X('Half'), Y('Float')]),
  'aten::mul Half by BFloat16 is Float': c('aten::mul(%x, %y)', [X('Half'), Y('BFloat16')]),
  'aten::mul Half by runtime float stays Half': c('aten::mul(%x, %s)', [X('Half'), '%s : float']),
  'aten::mul with a 0-dim Double tensor stays Float': c('aten::mul(%x, %y)', [X(), `%y : ${T('Double')}`]),
  'aten::mul broadcasts a row': c('aten::mul(%x, %y)', [X('Float', 2, 3, 4), Y('Float', 4)]),
  'aten::mul broadcasts size-1 dims': c('aten::mul(%x, %y)', [X('Float', 2, 1, 4), Y('Float', 3, 1)]),
  'aten::div true': c('aten::div(%x, %y)', XY),
  'aten::div of Long is Float': c('aten::div(%x, %two)', [X('Long')]),
  'aten::div trunc': c('aten::div(%x, %y, %trunc)', XY),
  'aten::div floor': c('aten::div(%x, %y, %floor)', XY),
  'aten::div trunc of Long': c('aten::div(%x, %two, %trunc)', [X('Long')]),
  'aten::div floor of Long': c('aten::div(%x, %two, %floor)', [X('Long')]),
  'aten::pow Tensor_Scalar': c('aten::pow(%x, %two)'),
  'aten::pow Tensor_Tensor': c('aten::pow(%x, %y)', XY),
  'aten::pow Scalar': c('aten::pow(%f25, %x)'),
  'aten::maximum': c('aten::maximum(%x, %y)', XY),
  'aten::true_divide': c('aten::true_divide(%x, %y)', [X('Long'), Y('Long')]),
  'aten::fmod': c('aten::fmod(%x, %y)', XY),
  'aten::fmod Scalar': c('aten::fmod(%x, %f25)'),
  'aten::remainder': c('aten::remainder(%x, %y)', XY),
  'aten::remainder Scalar of Long': c('aten::remainder(%x, %two)', [X('Long')]),
  'aten::atan2': c('aten::atan2(%x, %y)', XY),
  'aten::logical_and': c('aten::logical_and(%x, %y)', XY),
  'aten::logical_or of Bool': c('aten::logical_or(%x, %y)', [X('Bool'), Y('Bool')]),
  'aten::logical_xor': c('aten::logical_xor(%x, %y)', XY),
  'aten::bitwise_and of Long': c('aten::bitwise_and(%x, %y)', [X('Long'), Y('Long')]),
  'aten::bitwise_or of Int': c('aten::bitwise_or(%x, %y)', [X('Int'), Y('Int')]),
  'aten::bitwise_xor of Bool': c('aten::bitwise_xor(%x, %y)', [X('Bool'), Y('Bool')]),
  'aten::bitwise_not of Long': c('aten::bitwise_not(%x)', [X('Long')]),
  'aten::bitwise_not of Bool': c('aten::bitwise_not(%x)', [X('Bool')]),
  'aten::amin': c('aten::amin(%x, %dm1, %true)', [X('Float', 3, 4, 5)]),
  'aten::reshape_as': c('aten::reshape_as(%x, %y)', [X('Float', 3, 4), Y('Float', 2, 6)]),
  'aten::view_as': c('aten::view_as(%x, %y)', [X('Float', 3, 4), Y('Float', 12)]),
  'aten::clamp.Tensor': c('aten::clamp(%x, %y, %none)', XY),
  'aten::where ScalarSelf': c('aten::where(%b, %half, %x)', [`%b : ${T('Bool', 3, 4)}`, X()]),
  'aten::where Scalar': c('aten::where(%b, %half, %f25)', [`%b : ${T('Bool', 3, 4)}`]),
  'aten::lerp Tensor': c('aten::lerp(%x, %y, %z)', [...XY, `%z : ${T('Float', 3, 4)}`]),
  'aten::squeeze.dims': c('aten::squeeze(%x, %sq)', [X('Float', 3, 1, 4, 1)]),
  'aten::to.device': c('aten::to(%x, %cuda, %f16, %false, %false, %none)'),
  'aten::to.prim_Device': c('aten::to(%x, %cuda, %i64, %false, %false)'),
  'aten::gelu_backward none of Half': c('aten::gelu_backward(%y, %x, %nonestr)', [X('Half'), Y('Half')]),
  'aten::std.correction': c('aten::std(%x, %d1, %two, %false)', [X('Float', 3, 5)], { atol: 1e-5 }),
  'aten::minimum': c('aten::minimum(%x, %y)', XY),
  ...Object.fromEntries(['eq', 'ne', 'lt', 'le', 'gt', 'ge'].flatMap((op) => [
    [`aten::${op} Tensor`, c(`aten::${op}(%x, %y)`, XY)],
    [`aten::${op} Scalar`, c(`aten::${op}(%x, %half)`)],
  ])),
  'aten::where self': c('aten::where(%b, %x, %y)', [`%b : ${T('Bool', 3, 4)}`, ...XY]),
  'aten::where ScalarOther': c('aten::where(%b, %x, %f25)', [`%b : ${T('Bool', 3, 4)}`, X()]),
  'aten::where broadcasts the condition': c('aten::where(%b, %x, %y)', [`%b : ${T('Bool', 4)}`, ...XY]),
  'aten::clamp min and max': c('aten::clamp(%x, %m1, %half)'),
  'aten::clamp min only': c('aten::clamp(%x, %m1, %none)'),
  'aten::clamp max only': c('aten::clamp(%x, %none, %half)'),
  'aten::clamp_min': c('aten::clamp_min(%x, %half)'),
  'aten::clamp_max': c('aten::clamp_max(%x, %half)'),
  'aten::hardtanh': c('aten::hardtanh(%x, %m1, %one)'),
  'aten::threshold': c('aten::threshold(%x, %half, %f25)'),
  'aten::threshold_backward': c('aten::threshold_backward(%y, %x, %half)', XY),
  'aten::leaky_relu': c('aten::leaky_relu(%x, %half)'),
  'aten::addcmul': c('aten::addcmul(%x, %y, %z, %two)', [...XY, `%z : ${T('Float', 3, 4)}`]),
  'aten::lerp Scalar': c('aten::lerp(%x, %y, %half)', XY),
  'aten::gelu tanh of Half': c('aten::gelu(%x, %tanh)', [X('Half')]),
  'aten::gelu_backward tanh': c('aten::gelu_backward(%y, %x, %tanh)', XY),
  'aten::silu_backward': c('aten::silu_backward(%y, %x)', XY),
  'aten::dropout eval': c('aten::dropout(%x, %half, %false)'),
  'aten::to.dtype Half': c('aten::to(%x, %f16, %false, %false, %none)'),
  'aten::to.prim_dtype Long': c('aten::to(%x, %i64, %false, %false)'),
  'aten::to Bool': c('aten::to(%x, %b8, %false, %false, %none)'),
  'aten::to same dtype': c('aten::to(%x, %f32, %false, %false, %none)'),
  'aten::to.other': c('aten::to(%x, %y, %false, %false, %none)', [X(), Y('Half')]),
  'aten::type_as BFloat16': c('aten::type_as(%x, %y)', [X(), Y('BFloat16')]),
  'aten::sum all dims (None)': c('aten::sum(%x, %none, %false, %none)', [X('Float', 3, 4, 5)], { atol: 1e-5 }),
  'aten::sum over [] (all dims)': c('aten::sum(%x, %empty, %true, %none)', [X('Float', 3, 4, 5)], { atol: 1e-5 }),
  'aten::sum without dims': c('aten::sum(%x, %none)', [X('Float', 3, 4)], { atol: 1e-5 }),
  'aten::sum with dtype': c('aten::sum(%x, %dm1, %false, %f32)', [X('Half', 3, 4)], { atol: 1e-5 }),
  'aten::sum of Long': c('aten::sum(%x, %d0, %false, %none)', [X('Long', 3, 4)]),
  'aten::sum of Bool counts': c('aten::sum(%x, %d1, %true, %none)', [X('Bool', 3, 4)]),
  'aten::mean keepdim dim 0': c('aten::mean(%x, %d0, %true, %none)', [X('Float', 3, 4, 5)], { atol: 1e-6 }),
  'aten::mean of Half': c('aten::mean(%x, %dm1, %false, %none)', [X('Half', 3, 8)]),
  'aten::var correction 0': {
    graph: oneOp('aten::var(%x, %d1, %c0, %true)', { inputs: [X('Float', 3, 4, 5)], consts: `${CONSTS}\n%c0 : int = prim::Constant[value=0]()` }),
    opts: { atol: 1e-5 },
  },
  'aten::var all dims unbiased': c('aten::var(%x, %true)', [X('Float', 3, 4)], { atol: 1e-5 }),
  'aten::std unbiased': c('aten::std(%x, %dm1, %true, %false)', [X('Float', 3, 6)], { atol: 1e-5 }),
  'aten::amax': c('aten::amax(%x, %d1, %false)', [X('Float', 3, 4, 5)]),
  'aten::cumsum': c('aten::cumsum(%x, %one, %none)', [X('Float', 3, 7)], { atol: 1e-5 }),
  'aten::cumsum dim 0 of Int is Long': c('aten::cumsum(%x, %zero, %none)', [X('Int', 5, 3)]),
  'aten::cumsum of Half with dtype Float': c('aten::cumsum(%x, %m1, %f32)', [X('Half', 3, 9)], { atol: 1e-5 }),
  'aten::softmax with dtype': c('aten::softmax(%x, %m1, %f32)', [X('Half', 3, 8)]),
  'aten::log_softmax dim 0': c('aten::log_softmax(%x, %zero, %none)', [X('Float', 3, 5)]),
  'aten::_softmax half_to_float': c('aten::_softmax(%x, %one, %true)', [X('Half', 3, 5)]),
  'aten::_log_softmax': c('aten::_log_softmax(%x, %one, %false)', [X('Float', 3, 5)]),
  'aten::layer_norm without affine': c('aten::layer_norm(%x, %ns, %none, %none, %eps, %true)', [X('Float', 3, 4, 5)], { atol: 1e-5 }),
  'aten::native_layer_norm over two dims of Half': {
    graph: () =>
      graphOf(
        [X('Half', 3, 4, 5), `%w : ${T('Half', 4, 5)}`, `%b : ${T('Half', 4, 5)}`],
        `${CONSTS}\n%o : Tensor, %m : Tensor, %r : Tensor = aten::native_layer_norm(%x, %ns, %w, %b, %eps)`,
        ['o', 'm', 'r'],
      ),
  },
  'aten::batch_norm inference': {
    graph: () =>
      graphOf(
        [X('Float', 2, 3, 4), `%w : ${T('Float', 3)}`, `%b : ${T('Float', 3)}`, `%rm : ${T('Float', 3)}`, `%rvar : ${T('Float', 3)}`],
        `${CONSTS}\n%o : Tensor = aten::batch_norm(%x, %w, %b, %rm, %rvar, %false, %mom, %eps, %true)`,
        ['o'],
      ),
  },
  'aten::native_batch_norm training without running stats or affine': {
    graph: () =>
      graphOf(
        [X('Float', 4, 3, 5)],
        `${CONSTS}\n%o : Tensor, %m : Tensor, %r : Tensor = aten::native_batch_norm(%x, %none, %none, %none, %none, %true, %mom, %eps)`,
        ['o', 'm', 'r'],
      ),
    opts: { atol: 1e-5 },
  },
  'aten::_batch_norm_impl_index training of Half with running stats': {
    graph: () =>
      graphOf(
        [X('Half', 4, 3, 2, 2), `%w : ${T('Half', 3)}`, `%b : ${T('Half', 3)}`, `%rm : ${T('Float', 3)}`, `%rvar : ${T('Float', 3)}`],
        `${CONSTS}\n%o : Tensor, %m : Tensor, %r : Tensor, %res : Tensor, %idx : int = aten::_batch_norm_impl_index(%x, %w, %b, %rm, %rvar, %true, %mom, %eps, %true)`,
        ['o', 'm', 'r'],
      ),
    opts: { atol: 1e-5 },
  },
  'aten::flatten': c('aten::flatten(%x, %one, %m1)', [X('Float', 2, 3, 4)]),
  'aten::transpose': c('aten::transpose(%x, %one, %m1)', [X('Float', 2, 3, 4)]),
  'aten::t of a 2-d tensor': c('aten::t(%x)'),
  'aten::t of a 1-d tensor': c('aten::t(%x)', [X('Float', 5)]),
  'aten::expand with a new leading dim': c('aten::expand(%x, %sz, %false)', [X('Float', 3, 1)], {}),
  'aten::expand_as': c('aten::expand_as(%x, %y)', [X('Float', 1, 4), Y('Float', 3, 4)]),
  'aten::unsqueeze negative dim': c('aten::unsqueeze(%x, %m1)'),
  'aten::squeeze all size-1 dims': c('aten::squeeze(%x)', [X('Float', 3, 1, 4, 1)]),
  'aten::squeeze a dim that is not size 1 is a no-op': c('aten::squeeze(%x, %one)'),
  'aten::contiguous': c('aten::contiguous(%x, %zero)', [X()]),
  'aten::view with sizes from aten::size': {
    graph: () => graphOf([X('Float', 3, 4), Y('Float', 12)], '%s : int[] = aten::size(%x)\n%o : Tensor = aten::view(%y, %s)', ['o']),
  },
  'aten::size.int as a scalar operand': {
    graph: () => graphOf([X('Float', 3, 4)], '%one : int = prim::Constant[value=1]()\n%n : int = aten::size(%x, %one)\n%o : Tensor = aten::mul(%x, %n)', ['o']),
  },
  'prim::NumToTensor of a runtime int': {
    graph: () => graphOf([X(), '%n : int'], '%t : Tensor = prim::NumToTensor(%n)\n%o : Tensor = aten::add(%x, %t, %n)', ['o']),
  },
  'prim::ListUnpack of a profiled list': {
    graph: () =>
      graphOf(
        [X('Float', 3, 4)],
        '%l : int[] = prim::Constant[value=[1, 2]]()\n%a : int, %b : int = prim::ListUnpack(%l)\n%o : Tensor = aten::add(%x, %x, %b)',
        ['o'],
      ),
  },
  'a graph input returned unchanged is copied': { graph: () => graphOf([X(), Y()], '%o : Tensor = aten::relu(%x)', ['o', 'y']) },
};

describe('parseJitIR op coverage (differential against the aten reference)', () => {
  for (const [name, kase] of Object.entries(CASES)) {
    it(name, () => {
      for (let round = 0; round < 2; round += 1) expect(differentialCheck(kase.graph(), kase.opts).join('\n')).toBe('');
    });
  }
});

const MASK = '%t : bool = prim::Constant[value=1]()\n%f : bool = prim::Constant[value=0]()\n%all : bool[] = prim::ListConstruct(%t, %t, %t)\n%first : bool[] = prim::ListConstruct(%t, %f, %f)';
const BN_CONSTS = '%m : float = prim::Constant[value=0.10000000000000001]()\n%e : float = prim::Constant[value=1.0000000000000001e-05]()\n%n : NoneType = prim::Constant()';

const BACKWARD: Record<string, Case> = {
  'native_layer_norm forward + backward over two dims with weight and bias': {
    graph: () =>
      graphOf(
        [X('Float', 3, 4, 5), `%w : ${T('Float', 4, 5)}`, `%b : ${T('Float', 4, 5)}`, `%dy : ${T('Float', 3, 4, 5)}`],
        `${MASK}\n${BN_CONSTS}\n%ns : int[] = prim::Constant[value=[4, 5]]()\n%y : Tensor, %mean : Tensor, %rstd : Tensor = aten::native_layer_norm(%x, %ns, %w, %b, %e)\n%gi : Tensor, %gw : Tensor, %gb : Tensor = aten::native_layer_norm_backward(%dy, %x, %ns, %mean, %rstd, %w, %b, %all)`,
        ['y', 'gi', 'gw', 'gb'],
      ),
    opts: { atol: 1e-4 },
  },
  'native_layer_norm_backward of Half without weight, grad_input only': {
    graph: () =>
      graphOf(
        [X('Half', 3, 8), `%dy : ${T('Half', 3, 8)}`, `%mean : ${T('Float', 3, 1)}`, `%rstd : ${T('Float', 3, 1)}`],
        `${MASK}\n${BN_CONSTS}\n%ns : int[] = prim::Constant[value=[8]]()\n%gi : Tensor, %gw : Tensor, %gb : Tensor = aten::native_layer_norm_backward(%dy, %x, %ns, %mean, %rstd, %n, %n, %first)`,
        ['gi'],
      ),
  },
  'native_batch_norm forward + backward in training': {
    graph: () =>
      graphOf(
        [X('Float', 4, 3, 5), `%w : ${T('Float', 3)}`, `%b : ${T('Float', 3)}`, `%dy : ${T('Float', 4, 3, 5)}`],
        `${MASK}\n${BN_CONSTS}\n%y : Tensor, %sm : Tensor, %si : Tensor = aten::native_batch_norm(%x, %w, %b, %n, %n, %t, %m, %e)\n%gi : Tensor, %gw : Tensor, %gb : Tensor = aten::native_batch_norm_backward(%dy, %x, %w, %n, %n, %sm, %si, %t, %e, %all)`,
        ['y', 'gi', 'gw', 'gb'],
      ),
    opts: { atol: 1e-4 },
  },
  'native_batch_norm_backward in inference': {
    graph: () =>
      graphOf(
        [X('Float', 4, 3, 2, 2), `%w : ${T('Float', 3)}`, `%rm : ${T('Float', 3)}`, `%rvar : ${T('Float', 3)}`, `%dy : ${T('Float', 4, 3, 2, 2)}`],
        `${MASK}\n${BN_CONSTS}\n%gi : Tensor, %gw : Tensor, %gb : Tensor = aten::native_batch_norm_backward(%dy, %x, %w, %rm, %rvar, %n, %n, %f, %e, %all)`,
        ['gi', 'gw', 'gb'],
      ),
    opts: { atol: 1e-4 },
  },
  '_log_softmax forward + backward': {
    graph: () =>
      graphOf(
        [X('Float', 3, 6), `%g : ${T('Float', 3, 6)}`],
        '%one : int = prim::Constant[value=1]()\n%f : bool = prim::Constant[value=0]()\n%fl : int = prim::Constant[value=6]()\n%y : Tensor = aten::_log_softmax(%x, %one, %f)\n%gi : Tensor = aten::_log_softmax_backward_data(%g, %y, %one, %fl)',
        ['y', 'gi'],
      ),
    opts: { atol: 1e-5 },
  },
};

describe('normalization and softmax backward ops (differential)', () => {
  for (const [name, kase] of Object.entries(BACKWARD)) {
    it(name, () => {
      for (let round = 0; round < 2; round += 1) expect(differentialCheck(kase.graph(), kase.opts).join('\n')).toBe('');
    });
  }
});

describe('Half inputs of composite backward ops compute in Float', () => {
  it('aten::_softmax_backward_data of Half', () => {
    const g = graphOf(
      [X('Half', 3, 6), Y('Half', 3, 6)],
      '%one : int = prim::Constant[value=1]()\n%h : int = prim::Constant[value=5]()\n%o : Tensor = aten::_softmax_backward_data(%x, %y, %one, %h)',
      ['o'],
    );
    for (let round = 0; round < 2; round += 1) expect(differentialCheck(g).join('\n')).toBe('');
  });
});

describe('special functions without an independent reference, checked by identities', () => {
  const run = (body: string, dtype = 'Double'): number[][] => {
    const g = graphOf([`%x : ${T(dtype, 64)}`], body, ['o', 'p']);
    const values = Array.from({ length: 64 }, (_, i) => 0.25 + (i / 64) * 3.5);
    const x = HostTensor.fromValues(dtype as 'Double', [64], values);
    const [o, p] = evaluate(parseJitIR(g), [x]) as [HostTensor, HostTensor];
    return [values, o.toNumbers(), p.toNumbers()];
  };

  it('erfinv(erf(x)) = x', () => {
    const [xs, o] = run('%e : Tensor = aten::erf(%x)\n%o : Tensor = aten::erfinv(%e)\n%p : Tensor = aten::neg(%x)');
    xs?.forEach((x, i) => expect(o?.[i]).toBeCloseTo(x, 6));
  });

  it('lgamma(x + 1) - lgamma(x) = log(x) and digamma(x + 1) - digamma(x) = 1/x', () => {
    const one = '%one : int = prim::Constant[value=1]()\n%x1 : Tensor = aten::add(%x, %one, %one)';
    const [xs, lg, dg] = run(
      `${one}\n%a : Tensor = aten::lgamma(%x1)\n%b : Tensor = aten::lgamma(%x)\n%o : Tensor = aten::sub(%a, %b, %one)\n%c : Tensor = aten::digamma(%x1)\n%d : Tensor = aten::digamma(%x)\n%p : Tensor = aten::sub(%c, %d, %one)`,
    );
    xs?.forEach((x, i) => {
      expect(lg?.[i]).toBeCloseTo(Math.log(x), 10);
      expect(dg?.[i]).toBeCloseTo(1 / x, 10);
    });
  });
});
