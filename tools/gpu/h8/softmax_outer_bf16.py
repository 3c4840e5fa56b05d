def softmax_outer(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.max(T1, dims=[0], keepdim=False, dtype=DataType.Null)
    T4 = fd.ops.exp(fd.ops.sub(T1, fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[1])))
    T5 = fd.ops.sum(T4, dims=[0], keepdim=False, dtype=DataType.Null)
    T7 = fd.ops.mul(T4, fd.ops.reciprocal(fd.ops.broadcast_in_dim(T5, shape=T0.shape(), broadcast_dims=[1])))
    fd.add_output(fd.ops.cast(T7, dtype=DataType.BFloat16))
