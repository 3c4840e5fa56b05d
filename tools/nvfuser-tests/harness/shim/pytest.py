# The part of pytest nvFuser's tests use (mark.parametrize / skipif, raises, skip, fixture, param),
# put first on sys.path so the harness behaves the same where pytest is installed and where it is
# not; the harness's own collector (harness/collect.py) expands the marks.
#
# Invariant: marks are stored as pytest stores them (`func.pytestmark`, innermost decorator
# first, each with .name / .args / .kwargs); skip / xfail raise BaseExceptions a test's own
# `except Exception` cannot swallow. Differences from pytest, on purpose:
#   raises(match=...) accepts any message (tsfuser's wording is not nvFuser's) and notes it;
#   raises() that sees no exception says whether tsfuser ran inside the block: without a run the
#   error nvFuser raises while the definition is built cannot happen here (the stand-in records
#   without checking), which is a harness limit, not a tsfuser verdict.

import re


class Mark:
    def __init__(self, name, args, kwargs):
        self.name, self.args, self.kwargs = name, args, kwargs

    def __repr__(self):
        return f"Mark({self.name!r}, {self.args!r}, {self.kwargs!r})"


class MarkDecorator:
    def __init__(self, mark):
        self.mark = mark

    def __call__(self, func):
        marks = list(getattr(func, "pytestmark", []))
        marks.append(self.mark)
        func.pytestmark = marks
        return func


class _MarkGenerator:
    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def make(*args, **kwargs):
            if name not in ("parametrize", "skipif", "skip", "xfail") and len(args) == 1 and callable(args[0]) and not kwargs:
                return MarkDecorator(Mark(name, (), {}))(args[0])
            return MarkDecorator(Mark(name, args, kwargs))

        return make


mark = _MarkGenerator()


class Skipped(BaseException):
    pass


class XFailed(BaseException):
    pass


class Failed(AssertionError):
    pass


def skip(reason="", allow_module_level=False):
    raise Skipped(reason)


skip.Exception = Skipped


def xfail(reason=""):
    raise XFailed(reason)


xfail.Exception = XFailed


def fail(reason="", pytrace=True):
    raise Failed(reason)


def importorskip(modname, minversion=None, reason=None):
    import importlib

    try:
        return importlib.import_module(modname)
    except ImportError as e:
        raise Skipped(reason or f"could not import {modname!r}: {e}")


def fixture(*args, **kwargs):
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda f: f


class ParameterSet:
    def __init__(self, values, id=None, marks=()):
        self.values, self.id, self.marks = values, id, marks


def param(*values, id=None, marks=()):
    return ParameterSet(values, id, marks)


def _session():
    from nvfuser_direct import _session

    return _session


class RaisesContext:
    def __init__(self, expected, match):
        self.expected, self.match = expected, match
        self.value = None

    def __enter__(self):
        self._start = _session().current().execute_count
        return self

    def __exit__(self, exc_type, exc, tb):
        session = _session().current()
        if exc_type is None:
            if session.execute_count == self._start:
                raise _session().HarnessUnsupported(
                    "expects nvFuser to raise while the definition is built (the stand-in records without checking)"
                )
            raise AssertionError(f"DID NOT RAISE {self.expected}: nvFuser raises here, tsfuser ran it")
        if not issubclass(exc_type, self.expected):
            return False
        self.value = exc
        self.type = exc_type
        if self.match is not None and re.search(self.match, str(exc)) is None:
            session.note("pytest.raises(match=...): nvFuser's message not compared with tsfuser's")
        return True


def raises(expected, *args, match=None, **kwargs):
    if args:
        func, rest = args[0], args[1:]
        with RaisesContext(expected, match) as ctx:
            func(*rest, **kwargs)
        return ctx
    return RaisesContext(expected, match)


def approx(expected, rel=None, abs=None, nan_ok=False):
    raise _session().HarnessUnsupported("pytest.approx")
