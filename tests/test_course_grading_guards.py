"""The course's grader against what learners really write: a sys.exit() in their file, an endless loop that
swallows the grader's stop, a search that is right on some graphs only, a file that imports the answer
instead of writing it.  Each must fail with an explanation -- never pass, hang or end the grader."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from minigrad_ckpt import course
from minigrad_ckpt.cli import main
from minigrad_ckpt.course import grading, scalar_checks

pytest.importorskip("hypothesis")


def _file(tmp_path: Path, number: int, text: str) -> Path:
    path = tmp_path / course.get_step(number).file_name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _mutant(tmp_path: Path, number: int, *changes: tuple[str, str]) -> Path:
    """The reference solution of step ``number`` with each ``old`` replaced by ``new``."""
    text = course.get_step(number).solution.read_text(encoding="utf-8")
    for old, new in changes:
        assert old in text
        text = text.replace(old, new)
    return _file(tmp_path, number, text)


# ---------------------------------------------------------------------------- sys.exit() in the learner's file
@pytest.mark.parametrize("where, check", [
    ("import math\n", "import"),  # at import: a script's last line left in
    ("        self.grad = 1.0\n        stack", "backward() of small expressions matches the engine"),
])
def test_a_sys_exit_in_the_learners_code_fails_instead_of_ending_the_grader(tmp_path, capsys, where, check):
    exiting = where.replace("import math\n", "import math\nimport sys\nsys.exit(0)\n").replace(
        "self.grad = 1.0\n", "self.grad = 1.0\n        raise SystemExit\n")
    path = _mutant(tmp_path, 1, (where, exiting))
    report = course.check(1, path)
    assert not report.ok and report.failures[0].check == check, str(report)
    assert report.failures[0].got.startswith("SystemExit") and "sys.exit()" in report.failures[0].hint
    assert f"of {path.name}" in report.failures[0].got  # the learner's line
    assert main(["course", "check", "1", str(path)]) == 1  # the command line's verdict, not the learner's 0
    assert "FAIL" in capsys.readouterr().out


# ---------------------------------------------------------------------------- time limits
_SWALLOWING_LOOP = '''
    class Value:
        def __init__(self, data):
            while True:
                try:
                    total = sum(range(100000))  # the grader's stop lands here, nearly always
                except:  # noqa: E722  (a learner's bare except catches the stop too)
                    pass
'''


def test_an_endless_loop_that_swallows_the_stop_is_stopped_all_the_same(tmp_path):
    path = _file(tmp_path, 1, _SWALLOWING_LOOP)
    script = textwrap.dedent(f"""
        import signal, sys
        from minigrad_ckpt import course
        report = course.check(1, {str(path)!r}, time_limit=0.5)
        print(report.failures[0].check, "|", report.failures[0].got)
        print("trace left:", sys.gettrace(), "| handler left:", signal.getsignal(signal.SIGALRM) == signal.SIG_DFL,
              "| timer left:", signal.getitimer(signal.ITIMER_REAL))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr
    first, leftovers = done.stdout.splitlines()[:2]
    assert first.startswith("Value(2.0) holds data") and "still running after 0.5 s" in first
    assert f"of {path.name}" in first
    assert leftovers == "trace left: None | handler left: True | timer left: (0.0, 0.0)"


# ---------------------------------------------------------------------------- step 2's graphs
_PUSH_MARKED = '''
    from minigrad_ckpt.course.solutions.step_1_value import Value


    def topological_order(root):
        # marks a Value visited when it is pushed: a Value pushed early and reached again deeper, through
        # another of its users, is appended before that user's other inputs are
        order, seen, stack = [], {id(root)}, [(root, False)]
        while stack:
            v, inputs_done = stack.pop()
            if inputs_done:
                order.append(v)
                continue
            stack.append((v, True))
            for p in v._prev:
                if id(p) not in seen:
                    seen.add(id(p))
                    stack.append((p, False))
        return order


    def backward(root):
        root.grad = 1.0
        for v in reversed(topological_order(root)):
            v._backward()
'''


def test_an_order_marked_visited_when_pushed_is_refused(tmp_path):
    path = _file(tmp_path, 2, _PUSH_MARKED)
    report = course.check(2, path)
    assert report.failures[0].check == "topological_order of a graph with a shared value", str(report)
    assert "loss = v1 + v2" in report.failures[0].expected and "when you push it" in report.failures[0].hint
    # the random graphs find it on their own too, on a small graph
    with pytest.raises(grading.Mismatch, match="every Value after all of its inputs"):
        scalar_checks._random_graphs(grading.load_learner_module(path))


@pytest.mark.parametrize("share", [False, True])
def test_every_step_of_a_random_program_reaches_the_loss(share):
    from minigrad_ckpt.course.programs import programs

    seen = []

    def uses_every_step(p):
        seen.append(p)
        n = len(p.leaves)
        used = [x for _, args in p.steps for x in args if isinstance(x, int) and x >= n]
        assert sorted(set(used)) == list(range(n, n + len(p.steps) - 1))  # every intermediate feeds a later step
        if not share:
            assert len(used) == len(set(used))  # a tree: each intermediate once

    grading.property_check(programs(share_intermediates=share, ops=("+", "*", "tanh")), uses_every_step,
                           max_examples=60)
    assert len(seen) >= 60
