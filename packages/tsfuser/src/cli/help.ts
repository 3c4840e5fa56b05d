// `tsfuser --help`: commands, every flag, every dump option.

import { DUMP_OPTIONS } from './dump-options.js';

export function helpText(): string {
  const width = Math.max(...DUMP_OPTIONS.map((o) => o.name.length));
  const dumps = DUMP_OPTIONS.map((o) => `  ${o.name.padEnd(width)}  ${o.supported ? o.description : `(not supported: ${o.reason})`}`).join('\n');
  return `tsfuser — nvFuser's python frontend and CLI in TypeScript

Usage:
  tsfuser run <file> [options]     run a definition (.py nvFuser python_definition, or .mjs/.js
                                   module whose default export is (fd) => void)
  tsfuser bench [options]          GPU benchmarks side by side with PyTorch eager/torch.compile
  tsfuser ir print <file.ir>       parse a TorchScript IR file and print it back
  tsfuser fuse <graph.ir> [--dump fusion_ir_presched,launch_param]
                                   CudaGraphFuser + guards on a TorchScript graph; prints the
                                   guarded graph and the Fusion IR of each fusion group
      [--run] [--check] [--backend gpu|reference|auto]
                                   run the guarded graph (--check: against the un-fused graph)
      [--single-node]              a lone fusible node becomes a group (legacy single-node mode)
      [--inputs a.npy,2.5,…] [--save-outputs DIR]
                                   run on the given inputs (one per graph input); write each
                                   tensor output to DIR/out<i>.npy (compare with PyTorch's)
  tsfuser --help                   this text

Options of run:
  --backend gpu|reference|auto     where to run (default auto: GPU when available, else reference)
  --check                          compare the backend's outputs with the reference evaluator
                                   (dtype-aware tolerances); exit status 1 on a mismatch
  --explain                        print how the GPU path splits the fusion into kernels and why
                                   (the fusion_ir_segments dump; needs no GPU)
  --dump <a,b,…>                   print debug stages (see below; also NVFUSER_DUMP=a,b and
                                   TSFUSER_DUMP=a,b); compile-side dumps need no GPU
  --arch <sm_XX>                   target of compile-side dumps without a GPU (default sm_90;
                                   nvcc's -arch for ptx, cubin, ptxas_verbose)
  --device-properties <file.json>  device properties the schedulers read for that target
                                   (default: an H100's; fields of the scheduler's SchedulerDevice)
  --python                         with python_definition, also print nvFuser's python form
  --seed <N>                       seed of the input generator (default 0)
  --shape <d0,d1,…>                sizes of symbolic dims, right-aligned per input (replaces the
                                   file's inputs; default …,4,5,6,8)
  --inputs <a.npy,2.5,b.npy,…>     inputs from .npy files and numbers, in definition order
  --save-outputs <dir>             write each output as <dir>/out<i>.npy (bfloat16 as uint16 bits)
  --device <N>                     CUDA device for the GPU backend (default 0)
  --profile                        after the run (the warm-up), run --iters more profiled calls and
                                   print per kernel / library call: segment, scheduler or library,
                                   median device time, bytes, GB/s and % of the peak DRAM
                                   bandwidth (memory clock × bus width), TFLOP/s for GEMM and
                                   attention; a summary per class and the host time per call
                                   (the reference backend: nothing to profile, exit 0)
  --iters <N>                      profiled calls of --profile (default 10; then as many plain
                                   calls, whose median execute time is printed last)
  --cuda-graph                     GPU backend: replay the cached plan as a CUDA graph from its
                                   second call on (plans that cannot be captured run normally)

Options of bench (needs a GPU):
  --workloads <a,b>                a subset of readme_pointwise, bn_add_relu, pow_sum,
                                   gelu_bias_grad, softmax_f32, softmax_bf16, layer_norm_f32,
                                   layer_norm_bf16, rms_norm_bf16,
                                   dropout_residual_layer_norm_bf16, layer_norm_bwd_f32,
                                   layer_norm_bwd_bf16, embedding_bf16, cat3_dim0_bf16,
                                   cat3_dim1_bf16, pad_bf16, rope_bf16, transpose_f32,
                                   transpose_bf16, permute_bshd_bf16,
                                   reshape_layer_norm_prologue_bf16, gemm_bf16_8192x4096x4096,
                                   gemm_bf16_8192x16384x4096, gemm_bf16_8192x4096x16384,
                                   gemm_bf16_4096x11008x4096,
                                   gemm_bf16_dgrad_8192x4096x16384,
                                   gemm_bf16_wgrad_16384x4096x8192, linear_bias_gelu_bf16,
                                   gpt_mlp_fwd_bf16, gpt_mlp_bwd_bf16, llama_block_fwd_bf16,
                                   llama_block_bwd_bf16
                                   (default: all; GEMMs and the LLaMA block also print TFLOP/s)
  --iters <N>                      timed runs per workload, median reported (default 50)
  --rounds <N>                     N alternating rounds (each: every workload through tsfuser, then
                                   PyTorch); rows at the medians over rounds, then a table of each
                                   impl's median and min-max and the per-round speedup (default 1)
  --flush read|write               how L2 is flushed before each run: sum (default) or memset of
                                   512 MiB; a memset leaves dirty lines every run pays for
  --no-pytorch                     skip tools/bench/pytorch_bench.py (eager, torch.compile)
  --profile                        after timing, 5 profiled calls per workload: the per-kernel table
                                   of each definition and the timed median against the kernels' sum
  --pytorch-script <file>          where pytorch_bench.py is (default: found from the cwd up)
  --suite sweep                    the size sweep: families × dtypes × rows × hidden (tables + summary)
    --family f,…                   softmax, layer_norm, …, softmax_bwd_outer (default: all 43)
    --dtype f32,bf16               default: both
    --sizes RxH,…|llm|measured     default: llm + rows × (768, 4096, 16384) + 2/4/8/16 (92 sizes);
                                   llm: rows 16/1024/8192/16384 × GPT-2 … PaLM-540B hidden sizes;
                                   measured: rows 16/1024/8192 × hidden 768/2048/4096/8192/16384
    --offsets 2,4,8,16             also hidden + each offset (vectorization stress)
    --chunk i/n | i                only the i-th of n chunks, or of the default chunks (≤ 150 points)
    --list                         print the chosen points and exit (no GPU needed)
    --merge a.json,b.json          print the chunks' --json reports as one (no GPU needed)
  --json <file>                    also write the report as JSON

Dump options:
${dumps}

Exit status: 0 success, 1 failure (bad definition, bad inputs, check mismatch), 2 usage error.
`;
}
