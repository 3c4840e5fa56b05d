# Unit tests of the harness's own logic, on hand-written definitions (no nvFuser checkout, no
# tsfuser run): the recorder's text, the input encodings (--inputs vs the inputs line), the
# output layouts read back from the fusion_args dump, the pytest shim's parametrize expansion,
# and the family split. Run: python -m unittest tools/nvfuser-tests/harness/test_harness.py
# (needs torch and numpy; packages/tsfuser/test/nvfuser-tests-harness.test.ts runs it).

import os
import random
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "shim"), os.path.join(HERE, "stubs"), HERE]

import numpy  # noqa: E402
import torch  # noqa: E402

import pytest  # noqa: E402  (the shim)
from nvfuser_direct import DataType, FusionDefinition, _execute, _session  # noqa: E402
import collect  # noqa: E402
import families  # noqa: E402

SEED = int(os.environ.get("NVF_HARNESS_TEST_SEED", str(random.randrange(1 << 30))))
print(f"test_harness seed {SEED}", file=sys.stderr)


def session(tmp):
    s = _session.CaseSession(tsfuser=["false"], backend="reference", workdir=tmp, local_cuda_as_cpu=False, max_input_bytes=1 << 30)
    _session.install(s)
    return s


class RecorderText(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        session(self.tmp)

    def test_calls_as_written_and_inputs_in_order(self):
        with FusionDefinition() as fd:
            t0 = fd.define_tensor(shape=[-1, -1], contiguity=True, dtype=DataType.Half)
            s1 = fd.define_scalar(DataType.Int)
            c = fd.define_scalar(2.5)
            t1 = fd.ops.mul(t0, c)
            t2 = fd.ops.prod(t1, 1, False, DataType.Float)
            var, mean = fd.ops.var_mean(t1, dims=[1], correction=0, keepdim=False)
            fd.add_output(t2)
            fd.add_output(mean)
            fd.add_output(fd.ops.add(s1, 1))
        text = fd.definition_text()
        self.assertIn("T0 = fd.define_tensor(shape=[-1, -1], contiguity=True, dtype=DataType.Half)", text)
        self.assertIn("S1 = fd.define_scalar(DataType.Int)", text)
        self.assertIn("S2 = fd.define_scalar(2.5)", text)
        self.assertIn("T4 = fd.ops.prod(T3, 1, False, DataType.Float)", text)
        self.assertIn("T5, T6 = fd.ops.var_mean(T3, dims=[1], correction=0, keepdim=False)", text)
        self.assertIn("S7 = fd.ops.add(S1, 1)", text)
        self.assertEqual([h.name for h in fd._inputs], ["T0", "S1"])
        self.assertTrue(repr(fd).startswith("def nvfuser_fusion(fd : FusionDefinition) -> None :\n"))
        _ = var

    def test_repr_execs_back_to_the_same_text(self):
        with FusionDefinition() as fd:
            t0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
            fd.add_output(fd.ops.where(fd.ops.gt(t0, 0.0), t0, float("-inf")))
        scope = {"FusionDefinition": FusionDefinition, "DataType": DataType, "torch": torch}
        exec(str(repr(fd)), scope)
        with FusionDefinition() as fd2:
            scope["nvfuser_fusion"](fd2)
        self.assertEqual(fd.definition_text(), fd2.definition_text())
        self.assertIn("float('-inf')", fd.definition_text())

    def test_from_pytorch_is_define_tensor_of_sizes_and_strides(self):
        t = torch.randn(4, 6)[:, ::2]
        setattr(t, _session.CUDA_TAG, True)  # as local mode tags a test's 'cuda' tensors
        scalar = torch.tensor(2.0)  # a deliberate CPU scalar
        _session.current().local_cuda_as_cpu = True
        with FusionDefinition() as fd:
            fd.add_output(fd.ops.mul(fd.from_pytorch(t), fd.from_pytorch(scalar)))
        text = fd.definition_text()
        self.assertIn("T0 = fd.define_tensor(sizes=[4, 3], strides=[6, 2], dtype=DataType.Float, static_sizes=False, is_cpu=False)", text)
        self.assertIn("T1 = fd.define_tensor(sizes=[], strides=[], dtype=DataType.Float, static_sizes=False, is_cpu=True)", text)
        with self.assertRaises(ValueError):
            fd.from_pytorch(torch.randn(3))  # a CPU tensor of rank > 0: nvFuser refuses it

    def test_alias_output_runs_as_plain_output(self):
        with FusionDefinition() as fd:
            t0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
            t1 = fd.ops.add(t0, 1.0)
            fd.add_output(t1, t0)
        self.assertIn("fd.add_output(T1, T0)", repr(fd))
        self.assertIn("fd.add_output(T1)\n", fd.definition_text())
        self.assertNotIn("fd.add_output(T1, T0)", fd.definition_text())

    def test_unknown_api_is_harness_unsupported_not_attribute_error(self):
        with FusionDefinition() as fd:
            fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
        self.assertFalse(hasattr(fd, "fec"))
        with self.assertRaises(_session.HarnessUnsupported):
            fd.last_cuda_code()


class Inputs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.session = session(self.tmp)
        self.rng = torch.Generator().manual_seed(SEED)

    def test_dense_inputs_go_through_the_inputs_flag_with_bit_patterns(self):
        a = torch.randn(3, 5, generator=self.rng).to(torch.bfloat16)
        enc = _execute._encode([a, 2.5, 3, True], self.tmp, self.session)
        self.assertEqual(enc.entries, ["in0.npy", "2.5", "3", "True"])
        self.assertIsNone(enc.line)
        path, arr = enc.files[0]
        self.assertEqual(arr.dtype, numpy.uint16)
        back = torch.from_numpy(arr.copy()).view(torch.int16).view(torch.bfloat16)
        self.assertTrue(torch.equal(back, a))

    def test_strided_and_expanded_inputs_are_rebuilt_in_the_inputs_line(self):
        base = torch.randn(6, 8, generator=self.rng)
        strided = base[1:, ::3]
        expanded = torch.randn(1, 4, generator=self.rng).expand(5, 4)
        enc = _execute._encode([strided, expanded, float("nan")], self.tmp, self.session)
        self.assertIsNone(enc.entries)
        self.assertIn(f".as_strided({tuple(strided.shape)!r}, {strided.stride()!r})", enc.line)
        self.assertIn(".as_strided((5, 4), (0, 1))", enc.line)
        self.assertIn("float('nan')", enc.line)
        # The flat span, viewed as the line views it, is the input.
        _, flat = enc.files[0]
        rebuilt = torch.from_numpy(flat.copy()).as_strided(strided.shape, strided.stride())
        self.assertTrue(torch.equal(rebuilt, strided))
        _, flat1 = enc.files[1]
        self.assertEqual(flat1.size, 4)

    def test_inputs_over_the_limit_are_too_large(self):
        self.session.max_input_bytes = 100
        with self.assertRaises(_session.TooLarge):
            _execute._encode([torch.zeros(100)], self.tmp, self.session)


class Outputs(unittest.TestCase):
    def test_fusion_args_layouts_and_stride_rebuild(self):
        stdout = (
            "Arguments for fusion0:\nInputs:\n  Float [2, 3] (strides = [3, 1])\n  Double 2\nOutputs:\n"
            "  Float [2, 3] (strides = [1, 2])\n  Float [4, 3] (strides = [0, 1])\nfile: fusion id 0\n"
        )
        layouts = _execute._output_layouts(stdout)
        self.assertEqual(layouts, [("Float", [2, 3], [1, 2]), ("Float", [4, 3], [0, 1])])
        vals = torch.arange(6.0).reshape(2, 3)
        t = _execute._with_strides(vals, [1, 2])
        self.assertEqual(t.stride(), (1, 2))
        self.assertTrue(torch.equal(t, vals))
        row = torch.arange(3.0).expand(4, 3).contiguous()
        e = _execute._with_strides(row, [0, 1])
        self.assertEqual(e.stride(), (0, 1))
        self.assertTrue(torch.equal(e, row))

    def test_same_bits_tells_nan_payloads_and_zero_dim(self):
        a = torch.tensor(float("nan"))
        self.assertTrue(_execute._same_bits(_execute._snapshot([a]), [a.clone()]))
        self.assertFalse(_execute._same_bits(_execute._snapshot([torch.tensor(0.0)]), [torch.tensor(-0.0)]))

    def test_memo_keeps_expanded_strides(self):
        e = torch.arange(3.0).expand(4, 3)
        snap = _execute._snapshot([e])
        self.assertTrue(_execute._same_bits(snap, [e]))
        back = _execute._restore(snap)[0]
        self.assertEqual(back.stride(), (0, 1))
        self.assertTrue(torch.equal(back, e))
        self.assertFalse(_execute._same_bits(snap, [e.contiguous()]))


class Collection(unittest.TestCase):
    def test_parametrize_expansion_and_skipif(self):
        @pytest.mark.parametrize("a", [1, 2])
        @pytest.mark.parametrize("b,c", [(3, 4)])
        @pytest.mark.skipif(False, reason="never")
        def test_x(a, b, c):
            pass

        cases = collect.expand(test_x)
        self.assertEqual([p for p, _ in cases], [{"b": 3, "c": 4, "a": 1}, {"b": 3, "c": 4, "a": 2}])
        self.assertEqual([i for _, i in cases], ["[b=3-c=4-a=1]", "[b=3-c=4-a=2]"])
        self.assertIsNone(collect.skip_reason(test_x))

        @pytest.mark.skipif(True, reason="pre-hopper")
        def test_y():
            pass

        self.assertEqual(collect.skip_reason(test_y), "pre-hopper")

    def test_family_split(self):
        self.assertEqual(families.classify("test_repro.py", families.family_tokens("fd.ops.add(t0, t1)")), "core")
        self.assertEqual(families.classify("test_repro.py", families.family_tokens("fd.ops.cumsum(t0, 0)")), "op-family")
        self.assertEqual(families.classify("test_repro.py", families.family_tokens("dtype=DataType.ComplexFloat")), "op-family")
        self.assertEqual(families.classify("test_sdpa.py", []), "op-family")
        self.assertEqual(families.classify("test_repro.py", [], ["scatter"]), "op-family")


if __name__ == "__main__":
    unittest.main()
