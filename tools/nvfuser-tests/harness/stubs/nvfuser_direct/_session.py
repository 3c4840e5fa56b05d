# The per-case state the stand-in `nvfuser_direct` shares with the harness worker: how to run
# tsfuser, where to write each execute's files, and the events (one per fd.execute) the worker
# classifies the case by.
#
# Why module state: nvFuser's tests call `FusionDefinition()` and `fd.execute()` with no handle
# to pass our configuration through, so the worker installs one CaseSession here before it calls
# a test function and reads it back afterwards.
# Invariant: `current()` is the session of the case now running; every event of that case is in
# its `events`, in call order.

import os
import shlex
from dataclasses import dataclass, field


# The attribute local mode sets on tensors a test created on 'cuda' (mapped to the CPU), so
# from_pytorch can still tell them from the CPU scalars a test makes on purpose.
CUDA_TAG = "_nvf_harness_cuda"


class HarnessUnsupported(BaseException):
    """A construct the stand-in cannot carry to tsfuser (not a tsfuser verdict).

    A BaseException so that a test's own `pytest.raises(Exception)` / `except Exception` does not
    swallow it and turn a harness gap into a pass."""


class TooLarge(BaseException):
    """The inputs of an execute are over the harness's size limit (not run)."""


class TsfuserError(RuntimeError):
    """tsfuser refused the definition or its inputs (exit status != 0): nvFuser would raise here."""

    def __init__(self, message, too_large=False):
        super().__init__(message)
        self.too_large = too_large


@dataclass
class Event:
    """One fd.execute (or fd.validate) of the case."""

    status: str  # ok | refused | too-large | unsupported
    message: str = ""
    wall_s: float = 0.0
    memo: str = ""  # '' (ran), 'verified' (second identical run), 'hit' (answered from memo)
    ops: list = field(default_factory=list)
    dtypes: list = field(default_factory=list)
    definition: str = ""


@dataclass
class CaseSession:
    tsfuser: list  # argv prefix: ['node', 'packages/tsfuser/dist/cli.js'] or ['bash', 'gpu-bundle/run.sh', 'tsfuser']
    backend: str  # gpu | reference
    workdir: str  # scratch folder of this case
    local_cuda_as_cpu: bool
    max_input_bytes: int
    keep_files: bool = False
    memo_mode: str = "verify"  # verify: a repeat runs tsfuser again, must match bits; trust: a repeat is answered at once
    events: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    memo: dict = field(default_factory=dict)
    execute_count: int = 0

    def note(self, text):
        if text not in self.notes:
            self.notes.append(text)


_current = None


def install(session):
    global _current
    _current = session


def current():
    if _current is None:
        return session_from_env()
    return _current


def session_from_env():
    """A session from NVF_HARNESS_* variables (for running one test file by hand)."""
    global _current
    _current = CaseSession(
        tsfuser=shlex.split(os.environ.get("NVF_HARNESS_TSFUSER", "node packages/tsfuser/dist/cli.js")),
        backend=os.environ.get("NVF_HARNESS_BACKEND", "reference"),
        workdir=os.environ.get("NVF_HARNESS_WORKDIR", "/tmp/nvf-harness-manual"),
        local_cuda_as_cpu=os.environ.get("NVF_HARNESS_MODE", "local") == "local",
        max_input_bytes=int(os.environ.get("NVF_HARNESS_MAX_INPUT_BYTES", str(2 << 30))),
    )
    return _current
