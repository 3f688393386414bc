"""The steps of the course, in order, and the three things one can do with a step: list, start, check.

Each step is a stub file (``stubs/step_N_<name>.py``: instructions in its
docstring, the functions to write raising ``NotImplementedError``), a list of
checks, and a reference solution (``solutions/``, same file name) that the
test suite grades like a learner's file: the solution must pass, the stub must fail.
"""

from __future__ import annotations

import importlib
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .grading import TIME_LIMIT, Check, Report, grade

__all__ = ["Step", "STEPS", "get_step", "start", "check", "STUBS", "SOLUTIONS"]

HERE = Path(__file__).resolve().parent
STUBS = HERE / "stubs"
SOLUTIONS = HERE / "solutions"


@dataclass(frozen=True)
class Step:
    """One step: its number, the stem of its file name, a title, and where its checks live."""

    number: int
    name: str
    title: str
    checks: Callable[[], Sequence[Check]] = field(repr=False)  # imported when first graded

    @property
    def file_name(self) -> str:
        """The name ``start`` writes and ``check`` grades by default: ``step_1_value.py``."""
        return f"step_{self.number}_{self.name}.py"

    @property
    def stub(self) -> Path:
        """The stub file shipped with the package."""
        return STUBS / self.file_name

    @property
    def solution(self) -> Path:
        """The reference solution shipped with the package."""
        return SOLUTIONS / self.file_name


def _checks(module: str, name: str) -> Callable[[], Sequence[Check]]:
    """The list ``name`` of checks in this package's module ``module``, imported when first asked for."""
    return lambda: getattr(importlib.import_module(f".{module}", __package__), name)


def _step(number: int, name: str, title: str, module: str) -> Step:
    """Step ``number``, whose checks are the list ``<NAME>_CHECKS`` in this package's module ``module``."""
    return Step(number, name, title, _checks(module, f"{name.upper()}_CHECKS"))


STEPS: tuple[Step, ...] = (
    _step(1, "value", "a scalar Value: data, grad, +, * and backward()", "scalar_checks"),
    _step(2, "order", "the tape and reverse order: why backward walks a topological order", "scalar_checks"),
    _step(3, "broadcast", "broadcasting forward, summing gradients back to a shape", "broadcast_checks"),
    _step(4, "op", "an op class: forward and backward side by side, checked by the op battery", "op_checks"),
    _step(5, "jvp", "forward mode: an op's jvp, checked against differences and against backward", "op_checks"),
    _step(6, "checkpoint", "checkpoint a segment: drop its activations, replay it in backward", "checkpoint_checks"),
    _step(7, "snapshot", "a snapshot format: save a training state, resume bit for bit, refuse damage",
          "snapshot_checks"),
)


def get_step(number: int) -> Step:
    """The step numbered ``number`` (1-based); ``ValueError`` naming the steps there are."""
    for s in STEPS:
        if s.number == number:
            return s
    raise ValueError(f"there is no step {number}: the steps are 1 to {len(STEPS)} (minigrad-ckpt course list)")


def start(number: int, directory: Path | str = ".", force: bool = False) -> Path:
    """Copy step ``number``'s stub into ``directory`` and return its path.

    Refuses (``FileExistsError``) to overwrite a file already there -- it may
    hold the learner's work -- unless ``force``.
    """
    step = get_step(number)
    target = Path(directory) / step.file_name
    if target.exists() and not force:
        raise FileExistsError(f"{target} already exists (your work?): check it with "
                              f"`minigrad-ckpt course check {number}`, or start over with --force")
    shutil.copyfile(step.stub, target)
    return target


def check(number: int, path: Path | str | None = None, time_limit: float | None = TIME_LIMIT) -> Report:
    """Grade the learner's file for step ``number`` (default: the step's file name in the current directory).

    Each check may run ``time_limit`` seconds (``None``: no limit) before it is stopped and reported.
    """
    step = get_step(number)
    path = Path(step.file_name if path is None else path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist: write it with `minigrad-ckpt course start {number}`")
    return grade(step.number, step.title, path, list(step.checks()), time_limit)
