def softmax_bwd_outer(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    T4 = fd.ops.sum(fd.ops.mul(T2, T3), dims=[0], keepdim=False, dtype=DataType.Null)
    T6 = fd.ops.mul(T3, fd.ops.sub(T2, fd.ops.broadcast_in_dim(T4, shape=T0.shape(), broadcast_dims=[1])))
    fd.add_output(fd.ops.cast(T6, dtype=DataType.BFloat16))
