# The split of nvFuser's test cases into "core" and "op-family" (issue 36 reports each set):
# op-family = the op families tsfuser added in the last waves. One list, used for every case, run
# or not: a case is op-family when its file is one of FAMILY_FILES, or when its test function's
# source, its parameters, or the definitions it recorded name one of FAMILY_OPS or FAMILY_DTYPES.
#
# Invariant: the split depends only on the test's text and what it recorded, never on the outcome.

import re

FAMILY_FILES = {"test_matmul.py", "test_sdpa.py", "test_narrow_precision.py"}

FAMILY_OPS = {
    # GEMMs and attention
    "matmul", "linear", "sdpfa_fwd", "sdpfa_bwd", "scaled_mm", "grouped_mm",
    "cutlass_nvfp4_grouped_mm", "preprocess_grouped_matmul_input_sf",
    # indexing
    "embedding_fwd", "index_select", "select", "gather", "take_along_axis", "scatter",
    "index_put_accumulate",
    # scans and sorts
    "cumsum", "cumprod", "cummax", "cummin", "topk", "argsort", "sort",
    # random numbers
    "uniform", "normal", "rand_like", "randn_like",
    # block quantization
    "nv_block_quantize", "nv_grouped_block_quantize",
    # complex parts
    "real", "imag",
}

FAMILY_DTYPES = {
    "Float8_e4m3fn", "Float8_e5m2", "Float8_e8m0fnu", "Float4_e2m1fn", "Float4_e2m1fn_x2",
    "ComplexFloat", "ComplexDouble",
    "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float4_e2m1fn_x2",
    "complex64", "complex128", "cfloat", "cdouble",
}

_OP_CALL = re.compile(r"\bops\.([a-z_0-9]+)\b")
_WORD = re.compile(r"\b([A-Za-z_][A-Za-z_0-9]*)\b")


def family_tokens(text):
    """The family ops called (`ops.<name>`) and family dtypes named in `text`."""
    found = {m.group(1) for m in _OP_CALL.finditer(text)} & FAMILY_OPS
    found |= {m.group(1) for m in _WORD.finditer(text)} & FAMILY_DTYPES
    return found


def classify(file, static_tokens, recorded_ops=(), recorded_dtypes=()):
    """'op-family' or 'core'."""
    if file in FAMILY_FILES:
        return "op-family"
    if static_tokens:
        return "op-family"
    if set(recorded_ops) & FAMILY_OPS or set(recorded_dtypes) & FAMILY_DTYPES:
        return "op-family"
    return "core"
