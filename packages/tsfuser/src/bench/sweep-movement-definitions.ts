// Sweep families of nvFuser's benchmarks/python that move data rather than compute: a 2-D
// transpose (test_transpose's input-through-shared-memory form, relu(xᵀ), written row-major, so
// a kernel writes it rather than a view) and an embedding lookup (test_embedding_fwd: token ids
// into a table of nvFuser's phi3 vocabulary, 32064 rows). A point's hidden size is the transposed
// tensor's inner size, or the embedding width; its rows the number of rows, or tokens.
// tools/bench/sweep_pytorch.py times torch.relu(x.t().contiguous()) / F.embedding on the same sizes.

/** The embedding families' table height: hf_phi3's vocabulary in nvFuser's EMBEDDING_CONFIGS. */
export const SWEEP_EMBEDDING_VOCAB = 32064;

const full = (t: string, dtype: string): string => `    ${t} = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.${dtype}, is_cpu=False)\n`;

/** relu(xᵀ): input [rows, hidden], output [hidden, rows] row-major. */
export function transposeDef(dtype: string): string {
  return `def transpose(fd : FusionDefinition) -> None :
${full('T0', dtype)}    T1 = fd.ops.permute(T0, dims=[1, 0])
    S2 = fd.define_scalar(0.00000, dtype=DataType.Double)
    T3 = fd.ops.where(fd.ops.gt(T1, S2), T1, S2)
    fd.add_output(fd.ops.cast(T3, dtype=DataType.${dtype}), stride_order=[1, 0])
`;
}

/** table[ids]: ids Int [rows] in [0, vocab), table [vocab, hidden]; output [rows, hidden]. */
export function embeddingDef(dtype: string): string {
  return `def embedding(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
${full('T1', dtype)}    fd.add_output(fd.ops.embedding_fwd(T0, T1, padding_idx=None, max_norm=None, norm_type=None, scale_grad_by_freq=None, sparse=None))
`;
}
