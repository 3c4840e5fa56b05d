"""Generates real TorchScript graphs for tsfuser's TorchScript path (issue 22).

For each small function below it writes, under test-fixtures/torchscript/traced/:
  <name>.traced.ir    the graph torch.jit.trace records (typed shapes, source comments);
  <name>.scripted.ir  for scripted ones, the profiling executor's first graph
                      (torch.jit.last_executed_optimized_graph() after one run: prim::profile
                      nodes with profiled types), when SCRIPTED is set for the case;
  <name>/in<i>.npy    the inputs (bfloat16 as '<u2' bit patterns), ints as '<i8';
  <name>/out<i>.npy   PyTorch's eager outputs on those inputs.
Tensor devices are rewritten from cpu to cuda:0 (the graphs as a GPU trace prints them; 0-dim
scalar constants and NumToTensor results stay on the CPU, as on the GPU). Tiny shapes keep the
files small. Run: /tmp/torchvenv/bin/python tools/torchscript/generate_graphs.py
"""
import os
import re
import sys

import numpy as np
import torch
import torch.nn.functional as F

TORCH_DIR = os.path.dirname(torch.__file__)
OUT = os.path.join(os.path.dirname(__file__), '..', '..', 'test-fixtures', 'torchscript', 'traced')
torch.manual_seed(0)
torch._C._jit_set_profiling_executor(True)
torch._C._jit_set_num_profiled_runs(1)


def rnd(*shape, dtype=torch.float32, low=-1.0, high=1.0):
    return (torch.rand(*shape) * (high - low) + low).to(dtype)


def bias_gelu(x, b):
    return F.gelu(x + b)


def residual_layer_norm(x, r, w, b):
    return F.layer_norm(x + r, [x.shape[-1]], w, b, 1e-5)


def scaled_softmax(x):
    return torch.softmax(x * 0.125, -1)


def log_softmax(x):
    return torch.log_softmax(x, -1)


def silu_mul_bf16(a, b):
    return F.silu(a) * b


def rms_norm(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


def batch_norm_add_relu(x, y, rm, rv, w, b):
    return torch.relu(F.batch_norm(x, rm, rv, w, b, False, 0.1, 1e-5) + y)


def half_gelu(x):
    return F.gelu(x, approximate='tanh')


def where_sigmoid(x):
    return torch.where(x > 0.0, torch.sigmoid(x), x * 0.5)


def clamp_tanh(x):
    return torch.tanh(torch.clamp(x, -0.5, 0.5)) * 2.0


def sum_dims(x, y):
    return (x * y).sum([0, 2])


def var_mean(x):
    v = torch.var(x, [1], True, True)
    m = torch.mean(x, [1], True)
    return (x - m) * torch.rsqrt(v + 1e-5)


def amax_sub_exp(x):
    return torch.exp(x - x.amax(-1, keepdim=True))


def type_as(a, b):
    return (a.float() * b).type_as(a)


def broadcast_3d(x, y):
    return x + y * 2.0


def threshold_backward(g, x):
    return torch.ops.aten.threshold_backward(g, x, 0.0)


def addcmul_lerp(a, b, c):
    return torch.lerp(torch.addcmul(a, b, c, value=0.5), b, 0.3)


def zeros_like_where(x):
    return torch.where(x > 0.0, x, torch.zeros_like(x)) + torch.ones_like(x) * torch.full_like(x, 2.0)


def max_min_softplus(a, b):
    return torch.max(a, b) + torch.min(a, b) * F.softplus(a) + torch.atanh(b * 0.5)


def bitwise_shifts(a, b):
    return ((a & b) | (a ^ b)) + (a << 1) + (b >> 1)


def isinf_checks(x):
    return torch.isneginf(x) | torch.isposinf(x) | torch.isreal(x)


def instance_norm(x, w, b):
    return F.instance_norm(x, weight=w, bias=b, eps=1e-5)


def sum_to_size(x):
    return x.sum_to_size(1, 8) * 2.0


def to_copy_half(x):
    return torch.ops.aten._to_copy(x * 3.0, dtype=torch.float16)


def autocast_round_trip(x):
    h = torch.ops.aten._autocast_to_reduced_precision(x, True, True, torch.float16, torch.float16)
    return torch.ops.aten._autocast_to_full_precision(h * 2.0, True, True)


def bias_log_softmax(x, b):
    return torch.log_softmax(x + b, -1)


def like_dtypes(x):
    return torch.full_like(x, 3, dtype=torch.float16) + torch.zeros_like(x, dtype=torch.float16) * x.half()


def var_mean_tuple(x):
    return torch.var(x, [1], True, True), torch.mean(x, [1], True)


# name, function, inputs, scripted too
CASES = [
    ('bias_gelu', bias_gelu, lambda: [rnd(4, 8), rnd(8)], True),
    ('residual_layer_norm', residual_layer_norm, lambda: [rnd(4, 8), rnd(4, 8), rnd(8), rnd(8)], True),
    ('scaled_softmax', scaled_softmax, lambda: [rnd(4, 8)], True),
    ('log_softmax', log_softmax, lambda: [rnd(4, 8)], True),
    ('silu_mul_bf16', silu_mul_bf16, lambda: [rnd(4, 8, dtype=torch.bfloat16), rnd(4, 8, dtype=torch.bfloat16)], True),
    ('rms_norm', rms_norm, lambda: [rnd(4, 8), rnd(8)], True),
    ('batch_norm_add_relu', batch_norm_add_relu, lambda: [rnd(2, 3, 4, 4), rnd(2, 3, 4, 4), rnd(3), rnd(3, low=0.5, high=1.5), rnd(3), rnd(3)], True),
    ('half_gelu', half_gelu, lambda: [rnd(4, 8, dtype=torch.float16)], True),
    ('where_sigmoid', where_sigmoid, lambda: [rnd(4, 8)], True),
    ('clamp_tanh', clamp_tanh, lambda: [rnd(4, 8)], True),
    ('sum_dims', sum_dims, lambda: [rnd(2, 3, 4), rnd(2, 3, 4)], True),
    ('var_mean', var_mean, lambda: [rnd(4, 8)], True),
    ('amax_sub_exp', amax_sub_exp, lambda: [rnd(4, 8)], True),
    ('type_as', type_as, lambda: [rnd(4, 8, dtype=torch.float16), rnd(4, 8)], True),
    ('broadcast_3d', broadcast_3d, lambda: [rnd(4, 1, 8), rnd(1, 3, 8)], True),
    ('threshold_backward', threshold_backward, lambda: [rnd(4, 8), rnd(4, 8)], True),
    ('addcmul_lerp', addcmul_lerp, lambda: [rnd(4, 8), rnd(4, 8), rnd(4, 8)], True),
    ('zeros_like_where', zeros_like_where, lambda: [rnd(4, 8)], True),
    ('max_min_softplus', max_min_softplus, lambda: [rnd(4, 8), rnd(4, 8)], True),
    ('bitwise_shifts', bitwise_shifts, lambda: [torch.randint(0, 64, (4, 8)), torch.randint(0, 64, (4, 8))], False),
    ('isinf_checks', isinf_checks, lambda: [torch.tensor([[float('-inf'), 1.0, float('inf'), float('nan')], [0.0, -2.0, 3.0, float('-inf')]])], False),
    ('instance_norm', instance_norm, lambda: [rnd(2, 3, 4, 4), rnd(3), rnd(3)], False),
    ('sum_to_size', sum_to_size, lambda: [rnd(4, 8)], False),
    ('to_copy_half', to_copy_half, lambda: [rnd(4, 8)], False),
    ('autocast_round_trip', autocast_round_trip, lambda: [rnd(4, 8)], False),
    ('bias_log_softmax', bias_log_softmax, lambda: [rnd(4, 8), rnd(8)], True),
    ('like_dtypes', like_dtypes, lambda: [rnd(4, 8)], True),
    ('var_mean_tuple', var_mean_tuple, lambda: [rnd(4, 8)], True),
]

SIZED_CPU = re.compile(r'(\b[A-Z][A-Za-z0-9]*\(\d[^()]*?device=)cpu\)')


def to_cuda_text(graph):
    text = SIZED_CPU.sub(r'\1cuda:0)', str(graph))
    return text.replace(os.path.abspath(__file__), 'generate_graphs.py').replace(TORCH_DIR, 'torch')


def save_npy(path, t):
    if t.dtype == torch.bfloat16:
        np.save(path, t.contiguous().view(torch.int16).numpy().view(np.uint16))
    else:
        np.save(path, t.contiguous().numpy())


def dropout_residual(x, r):
    return F.dropout(x, 0.1, True) + r


def gelu_dropout_bf16(x, b):
    return F.dropout(F.gelu(x + b), 0.25, True)


def rand_like_scale(x):
    return torch.rand_like(x) * x


# Random graphs (training dropout, rand_like) go to traced-random/: PyTorch's numbers cannot be
# reproduced, so their outputs are checked by what every element must be (0 or x / (1 - p);
# within [0, 1) · x), not element by element. Scripted graphs run twice before profiling.
RANDOM_CASES = [
    ('dropout_residual', dropout_residual, lambda: [rnd(64, 256), rnd(64, 256)], True),
    ('gelu_dropout_bf16', gelu_dropout_bf16, lambda: [rnd(64, 256, dtype=torch.bfloat16), rnd(256, dtype=torch.bfloat16)], True),
    ('rand_like_scale', rand_like_scale, lambda: [rnd(64, 256)], True),
]
OUT_RANDOM = os.path.join(os.path.dirname(__file__), '..', '..', 'test-fixtures', 'torchscript', 'traced-random')


def main():
    os.makedirs(OUT, exist_ok=True)
    write_cases(CASES, OUT, check_again=True)
    os.makedirs(OUT_RANDOM, exist_ok=True)
    write_cases(RANDOM_CASES, OUT_RANDOM, check_again=False)


def write_cases(cases, out_dir, check_again):
    OUT = out_dir
    for name, fn, make_inputs, scripted in cases:
        inputs = make_inputs()
        with torch.no_grad():
            outputs = fn(*inputs)
            traced = torch.jit.trace(fn, inputs, check_trace=False)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        with open(os.path.join(OUT, f'{name}.traced.ir'), 'w') as f:
            f.write(to_cuda_text(traced.graph))
        if scripted:
            s = torch.jit.script(fn)
            with torch.no_grad():
                s(*inputs)
                profiled = torch.jit.last_executed_optimized_graph()
                again = s(*inputs)
            again = again if isinstance(again, tuple) else (again,)
            for a, b in zip(again, outputs):
                assert not check_again or torch.equal(a, b) or torch.allclose(a.float(), b.float(), equal_nan=True), name
            with open(os.path.join(OUT, f'{name}.scripted.ir'), 'w') as f:
                f.write(to_cuda_text(profiled))
        d = os.path.join(OUT, name)
        os.makedirs(d, exist_ok=True)
        for i, t in enumerate(inputs):
            save_npy(os.path.join(d, f'in{i}.npy'), t)
        for i, t in enumerate(outputs):
            save_npy(os.path.join(d, f'out{i}.npy'), t)
        print(name, 'scripted' if scripted else 'traced only', file=sys.stderr)


if __name__ == '__main__':
    main()
