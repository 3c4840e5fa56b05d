"""Generates real TorchScript graphs with complex and float8 ops for parseJitIR (issue 24).

For each small function below it records the graph torch.jit.trace makes and, for scripted
cases, the profiling executor's first graph (torch.jit.last_executed_optimized_graph() after one
run: prim::profile nodes with profiled types; inputs typed from the example inputs), with the inputs and PyTorch's eager outputs, into
test-fixtures/torchscript/complex-fp8.json (committed: CI has no PyTorch). Also:
  - scalarTypeCodes: c10::ScalarType's integer code of each float8 dtype, read from the
    prim::Constant a scripted `x.to(dtype)` passes to aten::to;
  - errors: profiled scripted graphs (exact columns; a trace records column 0) with a complex
    or float8 op tsfuser cannot lower, with the op and the source position (line:col) the
    error must name.
Values: complex tensors as interleaved (re, im) pairs, float8 tensors as the floats they hold,
non-finite numbers as "inf", "-inf", "nan". Source paths are rewritten to this file's name,
sized tensor types' devices from cpu to cuda:0 (as tools/torchscript/generate_graphs.py does).
Run: /tmp/torchvenv/bin/python tools/torchscript/generate_complex_fp8_graphs.py
"""
import inspect
import json
import math
import os
import re

import torch

OUT = os.path.join(os.path.dirname(__file__), '..', '..', 'test-fixtures', 'torchscript', 'complex-fp8.json')
HERE = os.path.abspath(__file__)
TORCH_DIR = os.path.dirname(torch.__file__)
torch.manual_seed(24)
torch._C._jit_set_profiling_executor(True)
torch._C._jit_set_num_profiled_runs(1)

DTYPES = {
    torch.float32: 'Float', torch.float64: 'Double', torch.bfloat16: 'BFloat16', torch.float16: 'Half',
    torch.complex64: 'ComplexFloat', torch.complex128: 'ComplexDouble', torch.bool: 'Bool',
    torch.float8_e4m3fn: 'Float8_e4m3fn', torch.float8_e5m2: 'Float8_e5m2', torch.float8_e8m0fnu: 'Float8_e8m0fnu',
}


def num(v):
    if isinstance(v, bool):
        return v
    if math.isnan(v):
        return 'nan'
    if math.isinf(v):
        return 'inf' if v > 0 else '-inf'
    return v


def tensor_json(x):
    flat = x.detach().reshape(-1)
    if x.is_complex():
        vals = torch.view_as_real(flat).reshape(-1).tolist()
    elif x.dtype in (torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e8m0fnu, torch.bfloat16, torch.float16):
        vals = flat.to(torch.float32).tolist()
    else:
        vals = flat.tolist()
    return {'shape': list(x.shape), 'dtype': DTYPES[x.dtype], 'values': [num(v) for v in vals]}


SIZED_CPU = re.compile(r'(\b[A-Z][A-Za-z0-9_]*\(\d[^()]*?device=)cpu\)')


def text(graph):
    # Tensor devices as a GPU trace prints them (0-dim constants stay on the CPU, as on the GPU).
    g = SIZED_CPU.sub(r'\1cuda:0)', str(graph))
    return g.replace(HERE, 'generate_complex_fp8_graphs.py').replace(TORCH_DIR, 'torch')


def profiled_graph(fn, inputs):
    """The profiling executor's first graph of torch.jit.script(fn), its inputs typed from `inputs`.

    The profiler records types only at the inputs of ops a fuser may claim (no prim::profile before
    aten::complex, say), so graph inputs get the type TensorType.create_from_tensor gives the
    example inputs, as a graph specialized to its arguments prints them.
    """
    s = torch.jit.script(fn)
    with torch.no_grad():
        result = s(*inputs)
    graph = torch.jit.last_executed_optimized_graph()
    for v, t in zip(graph.inputs(), inputs):
        v.setType(torch._C.TensorType.create_from_tensor(t))
    return graph, result


def rnd(*shape, dtype=torch.float32):
    return (torch.rand(*shape) * 4 - 2).to(dtype)


# --- complex -----------------------------------------------------------------------------------

def complex_mul_parts(x, y):
    z = torch.complex(x, y)
    w = z * z + z
    return torch.real(w), torch.imag(w)


def complex_abs_angle(x, y):
    z = torch.complex(x, y) * 2.0
    return torch.abs(z), torch.angle(z)


def complex_conj(x, y):
    z = torch.complex(x, y)
    return torch.real(z.conj() * z), torch.imag(z.conj() * (z + 1.0))


def complex_resolve_conj(z):
    return torch.resolve_conj(z.conj()) * z


def complex_input_ops(z, w):
    return torch.exp(z) / (w + 1.0) - z * w


def complex_double_abs(x, y):
    z = torch.complex(x.double(), y.double())
    return torch.abs(z * z) + torch.real(z)


def view_as_real_case(x, y):
    return torch.view_as_real(torch.complex(x, y) * 3.0)


def view_as_complex_case(x):
    return torch.view_as_complex(x) * 2.0


def real_angle(x):
    return torch.angle(x)


# --- float8 ------------------------------------------------------------------------------------

def fp8_round_trips(x):
    a = x.to(torch.float8_e4m3fn).to(torch.float32)
    b = x.to(torch.float8_e5m2).float()
    c = x.abs().to(torch.float8_e8m0fnu).to(torch.float32)
    return a * 2.0 + b, c


def fp8_outputs(x):
    return x.to(torch.float8_e4m3fn), (x * 4.0).to(torch.float8_e5m2)


def fp8_bf16(x):
    return x.to(torch.float8_e4m3fn).to(torch.bfloat16) * x


def fp8_to_copy(x):
    return torch.ops.aten._to_copy(x * 0.5, dtype=torch.float8_e5m2).to(torch.float32)


def fp8_input(q, s):
    return q.to(torch.float32) * s


def fp8_saturate(x):
    # e4m3fn has no infinity: PyTorch's cast of a finite value past 448 gives NaN (no saturation).
    return (x * 300.0).to(torch.float8_e4m3fn).float()


def fp8_e8m0_input(e):
    return e.float() * 3.0


CASES = [
    ('complex_mul_parts', complex_mul_parts, lambda: [rnd(3, 5), rnd(3, 5)], True),
    ('complex_abs_angle', complex_abs_angle, lambda: [rnd(4, 6), rnd(4, 6)], True),
    ('complex_conj', complex_conj, lambda: [rnd(2, 7), rnd(2, 7)], True),
    ('complex_resolve_conj', complex_resolve_conj, lambda: [torch.complex(rnd(3, 4), rnd(3, 4))], True),
    ('complex_input_ops', complex_input_ops, lambda: [torch.complex(rnd(3, 4), rnd(3, 4)), torch.complex(rnd(4), rnd(4))], True),
    ('complex_double_abs', complex_double_abs, lambda: [rnd(5), rnd(5)], True),
    ('view_as_real', view_as_real_case, lambda: [rnd(3, 4), rnd(3, 4)], True),
    ('view_as_complex', view_as_complex_case, lambda: [rnd(3, 4, 2)], True),
    ('real_angle', real_angle, lambda: [torch.tensor([[-1.5, 0.0, 2.0], [-0.0, float('nan'), -3.0]])], True),
    ('fp8_round_trips', fp8_round_trips, lambda: [rnd(4, 8) * 100], True),
    ('fp8_outputs', fp8_outputs, lambda: [rnd(4, 8) * 50], True),
    ('fp8_bf16', fp8_bf16, lambda: [rnd(3, 8, dtype=torch.bfloat16)], True),
    ('fp8_to_copy', fp8_to_copy, lambda: [rnd(4, 8) * 200], False),
    ('fp8_input', fp8_input, lambda: [(rnd(3, 8) * 10).to(torch.float8_e4m3fn), rnd(8)], True),
    ('fp8_saturate', fp8_saturate, lambda: [rnd(2, 8)], True),
    ('fp8_e8m0_input', fp8_e8m0_input, lambda: [(rnd(2, 5).abs() * 64).to(torch.float8_e8m0fnu)], True),
]


# --- ops tsfuser cannot lower on these dtypes --------------------------------------------------

def complex_cumsum(x, y):
    return torch.cumsum(torch.complex(x, y), 1)


def complex_prod(x, y):
    return torch.complex(x, y).prod(1)


def fp8_fnuz(x):
    return x.to(torch.float8_e4m3fnuz).float()


ERROR_CASES = [
    ('complex_cumsum', complex_cumsum, lambda: [rnd(2, 3), rnd(2, 3)], 'aten::cumsum'),
    ('complex_prod', complex_prod, lambda: [rnd(2, 3), rnd(2, 3)], 'aten::prod'),
    ('fp8_fnuz', fp8_fnuz, lambda: [rnd(2, 3)], 'aten::to'),
]


def as_tuple(o):
    return o if isinstance(o, tuple) else (o,)


def source_position(fn, needle):
    """line:col (1-based line in this file, 0-based column as TorchScript prints it) of `needle` in fn."""
    lines, start = inspect.getsourcelines(fn)
    for k, line in enumerate(lines):
        col = line.find(needle)
        if col >= 0:
            return f'{start + k}:{col}'
    raise ValueError(needle)


def scalar_type_codes():
    codes = {}
    for dt in (torch.float8_e5m2, torch.float8_e4m3fn, torch.float8_e8m0fnu, torch.float8_e5m2fnuz, torch.float8_e4m3fnuz):
        g = torch.jit.trace(lambda x: x.to(dt), torch.ones(2)).graph
        m = re.search(r'int = prim::Constant\[value=(\d+)\]', str(g))
        name = str(dt).replace('torch.', '')
        codes[name] = int(m.group(1))
    return codes


def main():
    cases = []
    for name, fn, make_inputs, scripted in CASES:
        inputs = make_inputs()
        with torch.no_grad():
            outputs = as_tuple(fn(*inputs))
            traced = torch.jit.trace(fn, inputs, check_trace=False)
        graphs = [('traced', text(traced.graph))]
        if scripted:
            graph, again = profiled_graph(fn, inputs)
            again = as_tuple(again)
            graphs.append(('scripted', text(graph)))
            for a, b in zip(again, outputs):
                assert torch.equal(a, b) or torch.allclose(a.to(torch.float64) if not a.is_complex() else a, b.to(torch.float64) if not b.is_complex() else b, equal_nan=True), name
        for kind, g in graphs:
            cases.append({'name': name, 'kind': kind, 'graph': g, 'inputs': [tensor_json(t) for t in inputs], 'outputs': [tensor_json(t) for t in outputs]})
    errors = []
    for name, fn, make_inputs, op in ERROR_CASES:
        inputs = make_inputs()
        graph, _ = profiled_graph(fn, inputs)
        needle = {'aten::cumsum': 'torch.cumsum', 'aten::prod': 'torch.complex(x, y).prod', 'aten::to': 'x.to('}[op]
        errors.append({'name': name, 'graph': text(graph), 'op': op, 'position': source_position(fn, needle)})
    with open(OUT, 'w') as f:
        json.dump({'torch': torch.__version__, 'scalarTypeCodes': scalar_type_codes(), 'cases': cases, 'errors': errors}, f, indent=1)
        f.write('\n')
    print(f'{len(cases)} graphs, {len(errors)} error graphs -> {OUT}')


if __name__ == '__main__':
    main()
