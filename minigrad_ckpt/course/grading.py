"""Grading a learner's file: load it apart from everything else, run named checks, explain failures.

A check is a function that raises :class:`Mismatch` (what was expected, what
the learner's code gave, a hint) when the learner's code is wrong.  Anything
else the learner's code raises is a failure too, reported with the line of the
learner's file it came from -- a traceback would bury the one line that
matters under the grader's own frames.  :func:`grade` runs checks in order and
collects a :class:`Report`; the checks of one step usually depend on each
other (no point checking gradients when ``+`` fails), so a step stops at its
first failure unless a check says it stands alone.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["Mismatch", "Failure", "Report", "Check", "CheckTimeout", "load_learner_module", "grade",
           "property_check", "case", "attribute", "own_work", "imported_names"]

#: Seconds one check (or the import of the learner's file) may run before it is stopped.
TIME_LIMIT = 60.0


class Mismatch(AssertionError):
    """The learner's code gave something else than expected; ``hint`` says what to look at."""

    def __init__(self, expected: str, got: str, hint: str) -> None:
        super().__init__(f"expected {expected}, got {got}")
        self.expected, self.got, self.hint = expected, got, hint


class CaseError(Exception):
    """The learner's code raised ``error`` while the check ran ``case`` (see :func:`case`)."""

    def __init__(self, case: str, error: Exception) -> None:
        super().__init__(f"{case}: {type(error).__name__}: {error}")
        self.case, self.error = case, error


@contextlib.contextmanager
def case(description: str) -> Iterator[None]:
    """Run learner code for one case: an error it raises is reported with ``description`` (the inputs)."""
    try:
        yield
    except (Mismatch, CaseError):
        raise
    except Exception as exc:
        raise CaseError(description, exc) from exc


class CheckTimeout(BaseException):
    """A check ran past its time limit.  A BaseException, so that neither the learner's code nor
    Hypothesis (which would try to shrink an endless loop) catches it on the way out."""


@dataclass
class Failure:
    """One failed check, in words a learner can act on."""

    check: str
    expected: str
    got: str
    hint: str

    def __str__(self) -> str:
        return (f"FAIL  {self.check}\n      expected: {self.expected}\n      got:      {self.got}\n"
                f"      hint:     {self.hint}")


@dataclass
class Report:
    """What :func:`grade` found: the checks that passed, the failures, the ones not run."""

    step: int
    title: str
    passed: list[str] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    not_run: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every check ran and passed."""
        return not self.failures and not self.not_run

    def __str__(self) -> str:
        lines = [f"Step {self.step}: {self.title}"]
        lines += [f"ok    {name}" for name in self.passed]
        lines += [str(f) for f in self.failures]
        lines += [f"skip  {name} (fix the failure above first)" for name in self.not_run]
        verdict = ("all checks pass: on to the next step" if self.ok else
                   f"{len(self.failures)} check(s) failed, {len(self.passed)} passed")
        return "\n".join(lines + [verdict])


@dataclass(frozen=True)
class Check:
    """A named check: ``run(module)`` raises :class:`Mismatch` (or anything) when the learner's code is wrong."""

    name: str
    run: Callable[[ModuleType], None]


def load_learner_module(path: Path) -> ModuleType:
    """Import the learner's file as a module of its own, under a name nothing else uses.

    The module is not left in ``sys.modules`` and no bytecode is written beside
    the learner's file; its ``if __name__ == "__main__":`` block does not run.
    Raises :class:`Mismatch` with the learner's line when the file does not import.
    """
    path = Path(path).resolve()  # the frames of its code then name it the way raised() compares
    name = f"minigrad_ckpt_course_learner_{abs(hash(str(path)))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise Mismatch("a Python file", f"{path}, which Python cannot load", "give the file a .py name")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and typing look their module up while it is built
    writes_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    folder, before = str(path.parent), set(sys.modules)
    sys.path.insert(0, folder)  # as `python step_2_order.py` would: the file imports its neighbours (its own
    try:  # step_1_value), which the installed `minigrad-ckpt` command, not run from that folder, did not find
        spec.loader.exec_module(module)
    except SystemExit as exc:  # left uncaught, it would end the grader -- with exit code 0 for sys.exit(0)
        raise Mismatch("your file to import", raised(exc, path), _EXIT_HINT) from exc
    except Exception as exc:
        raise Mismatch("your file to import", raised(exc, path),
                       "run `python " + path.name + "` to see the whole error, and fix that line") from exc
    finally:
        sys.dont_write_bytecode = writes_bytecode
        sys.modules.pop(name, None)
        _forget_neighbours(folder, before)
    module.__learner_path__ = path
    return module


def _forget_neighbours(folder: str, before: set[str]) -> None:
    """Take the learner's folder off the import path again, and forget the modules imported from it
    (the next check imports the learner's files as they are then, not as they were)."""
    if folder in sys.path:
        sys.path.remove(folder)
    for name in set(sys.modules) - before:
        where = getattr(sys.modules.get(name), "__file__", None)
        if where is not None and Path(where).resolve().parent == Path(folder):
            sys.modules.pop(name, None)


def raised(exc: BaseException, path: Path | None) -> str:
    """``ValueError: message (line 12 of step_1_value.py: `return self * other`)``: the exception and the
    deepest line of the learner's file it passed through."""
    text = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    if path is not None:
        mine = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == Path(path).resolve()]
        if mine:
            frame = mine[-1]
            text += f" (line {frame.lineno} of {Path(path).name}: `{(frame.line or '').strip()}`)"
    return text


_EXIT_HINT = ("your code called sys.exit() (or exit(), quit()): the grader imports your file and calls your "
              "functions, so return (or raise an error) instead, and keep script code under "
              "`if __name__ == \"__main__\":`")

#: The engine's own refusals of an op's contract, by a phrase of their message, and what to do about each.
_ENGINE_REFUSALS = (
    ("in-place operation", "never write into the arrays you are given (g, out, the inputs, the tangents): no +=, "
                           "*=, x[...] = ...; build new arrays with operators"),
    ("does not require grad", "nothing was recorded: backward runs with recording off, so a replay inside backward "
                              "must run under `with mg.enable_grad():`, on fresh inputs made with requires_grad=True"),
    ("gradients, got", "backward returns a tuple with one gradient per input (`return gx, gy`); a list or a "
                       "single array counts as one gradient"),
    ("returned a gradient of shape", "return each gradient at the output's (broadcast) shape: the engine sums it "
                                     "down to the input's shape for you (step 3)"),
    ("reads device memory implicitly", "your code handed a device array to NumPy (np.<function>) or read it as a "
                                       "Python number: use xp.<function> and operators (on a GPU, xp is CuPy)"),
    ("does not support ufuncs", "a NumPy function got an array it cannot take (one of the engine's Tensors, or a "
                                "GPU array): the engine runs forward, backward and jvp with other array types than "
                                "NumPy's, so write them with xp.<function> and operators, never np."),
)


def _hint_for(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return _EXIT_HINT
    if isinstance(exc, NotImplementedError):
        return "this part of the stub is not written yet: replace the `raise NotImplementedError` with your code"
    if isinstance(exc, RecursionError):
        return ("the recursion went too deep: walk the graph with a loop and an explicit stack "
                "(a list you append to and pop from) instead of a recursive function")
    for phrase, hint in _ENGINE_REFUSALS:
        if isinstance(exc, (TypeError, RuntimeError)) and phrase in str(exc):
            return hint
    if isinstance(exc, TypeError) and "NoneType" in str(exc):
        return ("a value is None: an op's backward gets only what the op declares it reads (save_inputs, "
                "save_output), and a tangent may be None (an input that does not move)")
    if isinstance(exc, AttributeError):
        return "an attribute is missing or misspelled: compare the names with the stub's docstring"
    return "read the line above in your file; the step's docstring says what each function must do"


def grade(step: int, title: str, module_path: Path, checks: Sequence[Check],
          time_limit: float | None = TIME_LIMIT) -> Report:
    """Import ``module_path`` and run ``checks`` on it in order, stopping at the first failure.

    Each check (and the import) may run ``time_limit`` seconds; one that runs
    longer -- an endless loop -- fails (where the platform has ``SIGALRM`` and
    grading runs in the main thread; elsewhere there is no limit).
    """
    report = Report(step, title)
    try:
        with _registry_restored():
            try:
                with _time_limit(time_limit, module_path):
                    module = load_learner_module(module_path)
            except CheckTimeout as exc:
                raise Mismatch("your file to import", f"it was still running after {time_limit:g} s",
                               _TIMEOUT_HINT) from exc
            for i, check in enumerate(checks):
                failure = _run_one(check, module, module_path, time_limit)
                if failure is None:
                    report.passed.append(check.name)
                    continue
                report.failures.append(failure)
                report.not_run = [c.name for c in checks[i + 1:]]
                break
    except Mismatch as exc:
        report.failures.append(Failure("import", exc.expected, exc.got, exc.hint))
        report.not_run = [c.name for c in checks]
    return report


_TIMEOUT_HINT = ("an endless loop? A loop that walks a graph must mark what it has visited, and a loop that "
                 "pops from a list must shrink it every turn")


def _run_one(check: Check, module: ModuleType, path: Path, time_limit: float | None) -> Failure | None:
    try:
        with _time_limit(time_limit, path):
            check.run(module)
    except CheckTimeout as exc:
        return Failure(check.name, f"the check to finish within {time_limit:g} s", raised(exc, path), _TIMEOUT_HINT)
    except Mismatch as exc:
        return Failure(check.name, exc.expected, exc.got, exc.hint)
    except CaseError as exc:
        return Failure(check.name, f"{exc.case} to run without an error", raised(exc.error, path),
                       _hint_for(exc.error))
    except (Exception, SystemExit) as exc:  # SystemExit: the learner's sys.exit() must not end the grader
        return Failure(check.name, "your code to run without an error", raised(exc, path), _hint_for(exc))
    return None


@contextlib.contextmanager
def _time_limit(seconds: float | None, learner_file: Path | None = None) -> Iterator[None]:
    """Raise :class:`CheckTimeout` wherever the code is after ``seconds`` (an interval timer's signal).

    A learner's ``try: ... except: pass`` inside an endless loop catches the
    first :class:`CheckTimeout` and goes on looping, so the signal repeats, and
    from the first one on every line of ``learner_file`` raises it again: the
    line that follows the swallowed one -- in the ``except`` block, outside the
    ``try`` -- lets it out.
    """
    if not seconds or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return
    message = f"still running after {seconds:g} s"
    armed = [True]
    filename = str(Path(learner_file).resolve()) if learner_file is not None else None

    def every_line(frame: Any, event: str, arg: Any) -> Any:
        if not armed[0] or frame.f_code.co_filename != filename:
            return None
        if event == "line":
            raise CheckTimeout(message)  # (Python then stops tracing: the next signal sets it again)
        return every_line

    def stop(signum: int, frame: Any) -> None:
        if not armed[0]:
            return
        if filename is not None:
            sys.settrace(every_line)
            while frame is not None:  # the learner's frames running now, not only those called from here on
                if frame.f_code.co_filename == filename:
                    frame.f_trace = every_line
                frame = frame.f_back
        raise CheckTimeout(message)

    previous, previous_trace = signal.signal(signal.SIGALRM, stop), sys.gettrace()
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.2)
    try:
        yield
    finally:
        while armed[0]:  # a signal landing in here raises too: try again until disarmed
            with contextlib.suppress(CheckTimeout):
                armed[0] = False
                signal.setitimer(signal.ITIMER_REAL, 0)
        sys.settrace(previous_trace)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _registry_restored() -> Iterator[None]:
    """The learner's op classes register themselves when their file is imported: take them out again,
    so grading twice (or grading a fixed file after a broken one) starts from the shipped registry."""
    from ..ops.base import registry

    before = dict(registry)
    try:
        yield
    finally:
        registry.clear()
        registry.update(before)


def property_check(strategy: Any, body: Callable[..., None], *, max_examples: int = 25,
                   shrink: bool = True) -> None:
    """Run ``body`` on examples drawn from ``strategy`` (Hypothesis, derandomized, no database, quiet).

    On a failure Hypothesis shrinks the example to a small one and re-raises
    ``body``'s :class:`Mismatch` for it, so the message names a small case.
    ``shrink=False`` reports the first failing example as drawn: for a costly
    ``body`` whose message already points at the culprit (the op battery's).
    """
    try:
        from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    except ImportError as exc:  # a learner without the test extras
        raise ImportError("the course's checks need Hypothesis: pip install hypothesis") from exc

    phases = tuple(Phase) if shrink else (Phase.explicit, Phase.reuse, Phase.generate)

    @settings(max_examples=max_examples, derandomize=True, database=None, deadline=None, phases=phases,
              verbosity=Verbosity.quiet, suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
    @given(strategy)
    def run(example: Any) -> None:
        body(example)

    run()


def attribute(module: ModuleType, name: str, what: str) -> Any:
    """``module.name``, or a :class:`Mismatch` that says the learner's file lacks it."""
    if not hasattr(module, name):
        raise Mismatch(f"your file to define {what} `{name}`", "no such name in the file",
                       f"keep the stub's name `{name}` (the checks look it up by name)")
    return getattr(module, name)


#: Every step forbids this: the reference solutions (and the checks) are what the learner's file is graded against.
_THE_ANSWERS = {"minigrad_ckpt.course": "the course's reference solutions are what your file is graded against: "
                                        "write the step yourself (peek at a solution when stuck, then close it)"}


def imported_names(source: str) -> list[tuple[int, str]]:
    """``(line, dotted name)`` for everything ``source`` reaches through an import, outside its
    ``if __name__ == "__main__":`` block: ``np.broadcast_to(...)`` after ``import numpy as np`` is
    ``numpy.broadcast_to``, ``from numpy import broadcast_to`` too; ``__import__("x")`` and
    ``importlib.import_module("x")`` with a literal name count as importing ``x``."""
    tree = ast.parse(source)
    tree.body = [node for node in tree.body if not (isinstance(node, ast.If) and "__main__" in ast.unparse(node.test))]
    aliases: dict[str, str] = {}
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
                found.append((node.lineno, a.name))
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                full = node.module if a.name == "*" else f"{node.module}.{a.name}"
                aliases[a.asname or a.name] = full
                found.append((node.lineno, full))
        elif _literal_import(node) is not None:
            found.append((node.lineno, _literal_import(node)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            parts, root = [node.attr], node.value
            while isinstance(root, ast.Attribute):
                parts.append(root.attr)
                root = root.value
            base = aliases.get(root.id) if isinstance(root, ast.Name) else _literal_import(root)
            if base is not None:
                found.append((node.lineno, ".".join([base, *reversed(parts)])))
    return sorted(set(found))


def _literal_import(node: ast.AST) -> str | None:
    """``"x"`` for ``__import__("x")`` or ``importlib.import_module("x")``; None for anything else."""
    if (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and ast.unparse(node.func) in ("__import__", "importlib.import_module", "import_module")):
        return node.args[0].value
    return None


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def own_work(forbidden: Mapping[str, str] | None = None, allowed: Sequence[str] = ()) -> Check:
    """A check that the learner's file writes the step itself: it uses none of ``forbidden`` (dotted
    names -- a module, or a function of one -- each with the reason it would skip the step), except the
    names in ``allowed``.  The course's own solutions are always forbidden."""
    rules = {**_THE_ANSWERS, **(forbidden or {})}

    def run(module: ModuleType) -> None:
        path = Path(module.__learner_path__)
        for line, name in imported_names(path.read_text(encoding="utf-8")):
            if any(_within(name, a) for a in allowed):
                continue
            for prefix, reason in rules.items():
                if _within(name, prefix):
                    raise Mismatch("your file to write the step itself",
                                   f"line {line} of {path.name} uses {name}", reason)

    return Check("your file writes the step itself (it does not import the answer)", run)
