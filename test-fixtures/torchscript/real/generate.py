# Generates the real TorchScript graphs in this folder with the CPU PyTorch wheel:
#   cd test-fixtures/torchscript/real && python generate.py
# Traced and scripted graphs print with source-location comments; the profiled and optimized
# graphs come from torch.jit.last_executed_optimized_graph() after a few runs.
import os

import torch
import torch.nn.functional as F

torch.manual_seed(0)
# Keep autodiff subgraphs (prim::DifferentiableGraph with `with` sections) in optimized graphs.
torch._C._debug_set_autodiff_subgraph_inlining(False)

HERE = os.path.dirname(os.path.abspath(__file__)) + "/"
TORCH = os.path.dirname(os.path.abspath(torch.__file__)) + "/"


def save(name, graph):
    # Source comments name this script relative to its folder and PyTorch files as torch/...
    text = str(graph).replace(HERE, "").replace(TORCH, "torch/")
    with open(f"{HERE}{name}.ir", "w") as f:
        f.write(text)


def bias_gelu(x, b):
    return F.gelu(x + b)


def scaled_softmax(x):
    return torch.softmax(x * 0.125, dim=-1)


def layer_norm_last(x, w, b):
    return F.layer_norm(x, [x.shape[-1]], w, b, 1e-5)


def rms_norm(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


x = torch.randn(4, 16)
b = torch.randn(16)
w = torch.randn(16)
save("traced_bias_gelu", torch.jit.trace(bias_gelu, (x, b)).graph)
save("traced_scaled_softmax", torch.jit.trace(scaled_softmax, (x,)).graph)
save("traced_layer_norm_size", torch.jit.trace(layer_norm_last, (x, w, b)).graph)
save("traced_rms_norm", torch.jit.trace(rms_norm, (x, w)).graph)


@torch.jit.script
def scripted_control_flow(x: torch.Tensor, n: int, flag: bool, mode: str):
    y = x
    for i in range(n):
        y = y * 2.0 + i
    if flag:
        y = torch.relu(y)
    else:
        y = torch.sigmoid(y)
    if mode == "gelu":
        y = F.gelu(y, approximate="tanh")
    return y.sum(dim=[0], keepdim=True), y.shape[-1]


save("scripted_control_flow", scripted_control_flow.graph)


@torch.jit.script
def scripted_pointwise(x: torch.Tensor, y: torch.Tensor):
    z = torch.clamp(x * y + 1.5, min=-2.0, max=2.0)
    return torch.where(z > 0, torch.tanh(z), z.exp())


save("scripted_pointwise", scripted_pointwise.graph)
a = torch.randn(8, 32)
c = torch.randn(8, 32)
scripted_pointwise(a, c)
save("profiled_pointwise", torch.jit.last_executed_optimized_graph())
for _ in range(3):
    scripted_pointwise(a, c)
save("optimized_pointwise", torch.jit.last_executed_optimized_graph())


@torch.jit.script
def scripted_residual_norm(x: torch.Tensor, r: torch.Tensor, w: torch.Tensor, b: torch.Tensor):
    h = x + r
    return F.layer_norm(h, [h.size(-1)], w, b, 1e-5).relu()


for _ in range(4):
    scripted_residual_norm(torch.randn(2, 8, 16), torch.randn(2, 8, 16), w, b)
save("optimized_residual_norm", torch.jit.last_executed_optimized_graph())


@torch.jit.script
def scripted_bias_gelu_grad(x: torch.Tensor, b: torch.Tensor):
    return F.gelu(x + b) * 2.0


xg = torch.randn(4, 16, requires_grad=True)
bg = torch.randn(16, requires_grad=True)
for _ in range(4):
    scripted_bias_gelu_grad(xg, bg).sum().backward()
save("optimized_differentiable_graph", scripted_bias_gelu_grad.graph_for(xg, bg))
