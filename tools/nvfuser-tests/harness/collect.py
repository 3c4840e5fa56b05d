# Collects nvFuser's test cases the way pytest would: every module-level `test*` function of the
# listed files, expanded over its `pytest.mark.parametrize` marks (cartesian product, ids
# `argname=value` as nvFuser's conftest makes them), with `skipif` / `skip` marks evaluated.
# The `nvfuser_direct_test` fixture is nvFuser's own NVFuserTest (conftest.py) in its "eager"
# form (no LRU cache): the "lru_cache" form runs the same definitions again through nvFuser's
# compiled-fusion cache, which has no tsfuser counterpart here.
#
# Invariant: the same files give the same case ids in the same order in every process.

import importlib.util
import inspect
import itertools
import os
import sys

from families import family_tokens

TEST_FILES = [
    "test_python_frontend.py",
    "test_repro.py",
    "test_sdpa.py",
    "test_matmul.py",
    "test_high_complexity.py",
    "test_narrow_precision.py",
    "test_alphafold3.py",
    "test_allocation.py",
]


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _id_of(argname, value):
    return f"{argname}={value}"


def _param_sets(mark):
    argnames = mark.args[0] if mark.args else mark.kwargs["argnames"]
    argvalues = mark.args[1] if len(mark.args) > 1 else mark.kwargs["argvalues"]
    names = [n.strip() for n in argnames.split(",")] if isinstance(argnames, str) else list(argnames)
    ids = mark.kwargs.get("ids")
    sets = []
    for k, raw in enumerate(argvalues):
        explicit = getattr(raw, "id", None) if hasattr(raw, "values") and hasattr(raw, "marks") else None
        values = raw.values if hasattr(raw, "values") and hasattr(raw, "marks") else raw
        if len(names) == 1 and not (hasattr(raw, "values") and hasattr(raw, "marks")):
            values = (values,)
        values = tuple(values)
        if explicit is not None:
            pid = explicit
        elif isinstance(ids, (list, tuple)) and k < len(ids) and ids[k] is not None:
            pid = str(ids[k])
        elif callable(ids):
            made = [ids(v) for v in values]
            pid = "-".join(str(m) if m is not None else _id_of(n, v) for n, v, m in zip(names, values, made))
        else:
            pid = "-".join(_id_of(n, v) for n, v in zip(names, values))
        sets.append((dict(zip(names, values)), pid))
    return sets


def expand(func):
    """[(params dict, id suffix or '')] over the function's parametrize marks."""
    marks = [m for m in getattr(func, "pytestmark", []) if m.name == "parametrize"]
    if not marks:
        return [({}, "")]
    groups = [_param_sets(m) for m in marks]
    out = []
    for combo in itertools.product(*groups):
        params, ids = {}, []
        for p, pid in combo:
            params.update(p)
            ids.append(pid)
        out.append((params, "[" + "-".join(ids) + "]"))
    return out


def skip_reason(func):
    for m in getattr(func, "pytestmark", []):
        if m.name == "skip":
            return m.kwargs.get("reason", m.args[0] if m.args else "skip mark")
        if m.name == "skipif":
            cond = m.args[0] if m.args else m.kwargs.get("condition")
            if isinstance(cond, str):
                continue
            if cond:
                return m.kwargs.get("reason", "skipif")
    return None


class Collection:
    """The modules and cases of one tests root (a copy of nvFuser's tests/)."""

    def __init__(self, tests_root):
        self.tests_root = tests_root
        direct = os.path.join(tests_root, "python", "direct")
        self.conftest = load_module(os.path.join(direct, "conftest.py"), "conftest")
        self.cases = []
        self.by_id = {}
        for file in TEST_FILES:
            path = os.path.join(direct, file)
            if not os.path.exists(path):
                continue
            module = load_module(path, file[:-3])
            for name, obj in list(vars(module).items()):
                if not name.startswith("test") or not inspect.isfunction(obj) or obj.__module__ != module.__name__:
                    continue
                try:
                    source = inspect.getsource(obj)
                except OSError:
                    source = ""
                for params, suffix in expand(obj):
                    case_id = f"{file}::{name}{suffix}"
                    tokens = sorted(family_tokens(source + " " + suffix))
                    case = {"id": case_id, "file": file, "name": name, "skip": skip_reason(obj), "tokens": tokens}
                    self.cases.append(case)
                    self.by_id[case_id] = (obj, params, case)
