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


# ---------------------------------------------------------------------------- the learner's own work
_OWN_WORK = "your file writes the step itself (it does not import the answer)"


@pytest.mark.parametrize("number", [s.number for s in course.STEPS])
@pytest.mark.parametrize("spelling", ["from {module} import *", "import {module} as answer\n{names}",
                                      "from importlib import import_module\n{names_of_import_module}"])
def test_a_file_that_imports_the_reference_solution_is_refused(tmp_path, number, spelling):
    step = course.get_step(number)
    module = f"minigrad_ckpt.course.solutions.{step.solution.stem}"
    graded = {1: ["Value"], 2: ["topological_order", "backward"], 3: ["broadcast_shape", "sum_to_shape"],
              4: ["MulExp"], 5: ["SinMul"], 6: ["Replay", "checkpoint"], 7: ["save", "load"]}[number]
    text = spelling.format(module=module, names="\n".join(f"{n} = answer.{n}" for n in graded),
                           names_of_import_module="\n".join(f"{n} = import_module({module!r}).{n}" for n in graded))
    if number == 2:
        text = "from minigrad_ckpt.course.solutions.step_1_value import Value\n" + text
    report = course.check(number, _file(tmp_path, number, text))
    assert report.failures[0].check == _OWN_WORK, str(report)
    assert module in report.failures[0].got and "reference solutions" in report.failures[0].hint
    assert report.passed == []


@pytest.mark.parametrize("number, old, new, named", [
    (3, "    n = max(len(a), len(b))\n", "    return tuple(np.broadcast_shapes(a, b))\n", "numpy.broadcast_shapes"),
    (3, "import numpy as np\n", "import numpy as np\nfrom numpy import broadcast_to as stretch\n",
     "numpy.broadcast_to"),
    (6, "    return apply(Replay(fn=fn), *inputs)", "    return mg.checkpoint.checkpoint(fn, *inputs)",
     "minigrad_ckpt.checkpoint"),
    (7, "import numpy as np\n", "import numpy as np\nimport minigrad_ckpt as mg\nsave, load = mg.save, mg.load\n",
     "minigrad_ckpt"),
    (2, "    order, seen = [], set()\n",
     "    import graphlib  # noqa\n    order, seen = [], set()\n", "graphlib"),
])
def test_a_file_that_lets_a_library_do_the_step_is_refused(tmp_path, number, old, new, named):
    report = course.check(number, _mutant(tmp_path, number, (old, new)))
    assert report.failures[0].check == _OWN_WORK, str(report)
    assert report.failures[0].got.endswith(f"uses {named}") or f"uses {named}." in report.failures[0].got


def test_a_value_that_wraps_the_engines_tensors_is_refused(tmp_path):
    path = _file(tmp_path, 1, '''
        import minigrad_ckpt as mg


        class Value:
            def __init__(self, data):
                self.t = mg.tensor(float(data), requires_grad=True)
                self.data, self.grad = float(data), 0.0
    ''')
    failure = course.check(1, path).failures[0]
    assert failure.check == _OWN_WORK and "line 2 of step_1_value.py uses minigrad_ckpt" in failure.got
    assert "plain Python numbers" in failure.hint


def test_the_main_block_may_compare_with_the_engine(tmp_path):
    path = _mutant(tmp_path, 1, ("import math\n", "import math\n"),)
    path.write_text(path.read_text(encoding="utf-8") + '\n\nif __name__ == "__main__":\n'
                    "    import minigrad_ckpt as mg\n    print(mg.tensor(2.0) * 3, Value(2.0) * 3)\n",
                    encoding="utf-8")
    assert course.check(1, path).ok


def test_imported_names_follow_aliases_and_literal_imports():
    source = textwrap.dedent('''
        import numpy as np
        import os.path
        from minigrad_ckpt import checkpoint as ck
        def f(a, b):
            np.broadcast_to(a, b)
            ck.checkpoint(f)
            __import__("numpy").broadcast_arrays(a)
            return os.path.join("a")
        if __name__ == "__main__":
            import graphlib
    ''')
    names = {name for _, name in grading.imported_names(source)}
    assert {"numpy.broadcast_to", "minigrad_ckpt.checkpoint.checkpoint", "numpy.broadcast_arrays",
            "os.path.join"} <= names
    assert "graphlib" not in names


# ---------------------------------------------------------------------------- what the learner's code is handed
def test_a_jvp_that_writes_into_its_tangent_is_told_and_leaves_the_graders_constants_alone(tmp_path):
    from minigrad_ckpt.course import op_checks

    before = {name: getattr(op_checks, name).copy() for name in ("_TX", "_TY", "_SX", "_SY")}
    path = _mutant(tmp_path, 5, ("return add_tangents(None if tx is None else xp.cos(x) * y * tx,",
                                 "if tx is not None:\n            tx *= xp.cos(x) * y\n"
                                 "        return add_tangents(tx,"))
    first, second = course.check(5, path), course.check(5, path)
    assert str(first) == str(second)  # the same verdict twice: nothing the first grading changed
    failure = first.failures[0]
    assert failure.check == "jvp with both tangents matches central differences", str(first)
    assert failure.got == "tx was changed in place" and "never write into" in failure.hint
    for name, value in before.items():
        assert np_equal(getattr(op_checks, name), value), name
    assert course.check(5, course.get_step(5).solution).ok


def np_equal(a, b) -> bool:
    import numpy as np

    return bool(np.array_equal(a, b))


# ---------------------------------------------------------------------------- step 3: dtype and a new array
@pytest.mark.parametrize("old, new, words", [
    ("return summed.reshape(shape)", "return summed.reshape(shape).astype(np.float32)", "dtype float32"),
    ("    shape = tuple(shape)\n", "    shape = tuple(shape)\n    if True:\n        out = np.zeros(shape)\n"
     "        out += grad.sum(axis=tuple(range(grad.ndim - len(shape))))"
     ".sum(axis=tuple(i for i, n in enumerate(shape) if n == 1), keepdims=True)\n        return out\n",
     "dtype float64"),  # an accumulator of the default dtype: right for float64 gradients only
    ("np.array(grad, copy=True)", "grad", "new array"),
])
def test_sum_to_shape_keeps_the_gradients_dtype_and_returns_a_new_array(tmp_path, old, new, words):
    report = course.check(3, _mutant(tmp_path, 3, (old, new)))
    failure = report.failures[0]
    assert failure.check == "sum_to_shape of a few gradients matches the engine", str(report)
    assert words in f"{failure.expected} {failure.got}", str(report)


@pytest.mark.parametrize("old, new, check, words", [
    ("(1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)",
     "tuple(a) + (1,) * (n - len(a)), tuple(b) + (1,) * (n - len(b))", "broadcast_shape of a few shapes",
     "pad the shorter one with 1s on the left"),
    ("raise ValueError(f\"shapes", "raise AssertionError(f\"shapes", "broadcast_shape refuses", "raise ValueError"),
])
def test_broadcast_shape_errors_say_what_the_rule_wants(tmp_path, old, new, check, words):
    path = _mutant(tmp_path, 3, (old, new))
    failure = course.check(3, path).failures[0]
    assert failure.check.startswith(check) and words in failure.hint
    assert f"of {path.name}" in failure.got  # the learner's raise, with its line


# ---------------------------------------------------------------------------- hints that name the mistake
@pytest.mark.parametrize("number, old, new, check, words", [
    # the chain rule forgotten: before, the case that failed first was about constants
    (1, "self.grad += other.data * out.grad\n            other.grad += self.data * out.grad",
     "self.grad += other.data\n            other.grad += self.data", "backward() of small expressions",
     "the chain rule"),
    (1, "self.data = float(data)", "import numpy\n        self.data = numpy.float32(data)",
     "backward() of small expressions", "float32"),
    (1, "    def __radd__(self, other):\n        return self + other", "    def __radd__(self, other):\n"
     "        return other + self", "+ and * make new Values", "`other + self`"),
    # an in-place write into g was told to use mg.enable_grad() (its message mentions no_grad)
    (4, "return g * xp.exp(y), g * out", "gx = g * xp.exp(y)\n        g *= out\n        return gx, g",
     "the op battery", "never write into"),
    (4, "return g * xp.exp(y), g * out", "return [g * xp.exp(y), g * out]", "backward matches central",
     "a list"),
    (4, "return g * xp.exp(y), g * out", "return (g * xp.exp(y)).sum(axis=0), g * out",
     "backward matches central", "output's (broadcast) shape"),
    (6, "inputs = [mg.tensor(x, requires_grad=True) for x in xs]", "inputs = [mg.tensor(x) for x in xs]",
     "same output and gradients", "requires_grad=True"),
    # a gradient left out: the grader's own .numpy() on None was reported as the learner's AttributeError
    (6, "return tuple(gi.numpy() for gi in grads)", "return (grads[0].numpy(),) + (None,) * (len(grads) - 1)",
     "same output and gradients", "one gradient per input"),
])
def test_a_failure_names_the_mistake_made(tmp_path, number, old, new, check, words):
    report = course.check(number, _mutant(tmp_path, number, (old, new)))
    failure = report.failures[0]
    assert failure.check.startswith(check), str(report)
    assert words in f"{failure.expected} {failure.got} {failure.hint}", str(report)
    assert "AttributeError" not in failure.got


# ---------------------------------------------------------------------------- xp, not np
@pytest.mark.parametrize("number, old, new", [
    (4, "return x * xp.exp(y)", "import numpy as np\n        return x * np.exp(y)"),  # forward: NumPy arrays on a CPU
    (5, "return add_tangents(None if tx is None else xp.cos(x) * y * tx,",
     "import numpy as np\n        if not hasattr(x, 'requires_grad'):\n            xp = np\n"
     "        return add_tangents(None if tx is None else xp.cos(x) * y * tx,"),  # np whenever it works on a CPU
])
def test_numpy_where_xp_belongs_fails_on_a_gpu_like_device(tmp_path, number, old, new):
    report = course.check(number, _mutant(tmp_path, number, (old, new)))
    failure = report.failures[0]
    assert failure.check.startswith("forward") and "GPU-like device" in failure.check, str(report)
    assert "StrictArray" in failure.got and "xp.<function>" in failure.hint
    assert report.passed[-1].startswith("the op battery")  # everything the CPU can check passed


# ---------------------------------------------------------------------------- step 7: a damaged file is a ValueError
def test_a_damaged_snapshot_must_be_refused_with_value_error_as_the_stub_says(tmp_path):
    # no check of the file's fields: a flipped bit in a key is a KeyError, not the ValueError a caller catches
    path = _mutant(tmp_path, 7, ("outer.get(\"checksum\")", "outer[\"checksum\"]"))
    report = course.check(7, path)
    failure = report.failures[0]
    assert failure.check == "a file with any one bit flipped is refused", str(report)
    assert failure.expected.startswith("load to raise ValueError for the saved file with bit")
    assert failure.got.startswith(("KeyError", "TypeError", "AttributeError")) and f"of {path.name}" in failure.got
    assert "raise ValueError" in failure.hint


def test_a_step_imports_the_learners_own_earlier_step_from_its_folder(tmp_path):
    # `minigrad-ckpt course check 2` is not run from the learner's folder, whose step_1_value.py their
    # step 2 imports (as `python step_2_order.py` finds it): ModuleNotFoundError before
    import subprocess
    import sys
    from pathlib import Path

    import minigrad_ckpt.course.solutions as solutions

    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "step_1_value.py").write_text((Path(solutions.__file__).parent / "step_1_value.py").read_text())
    step_2 = (Path(solutions.__file__).parent / "step_2_order.py").read_text().replace(
        "from minigrad_ckpt.course.solutions.step_1_value import Value", "from step_1_value import Value")
    (folder / "step_2_order.py").write_text(step_2)
    program = ("import sys; from minigrad_ckpt import course; r = course.check(2, sys.argv[1]); print(r.ok); "
               "print('step_1_value' in sys.modules, sys.argv[2] in sys.path)")
    done = subprocess.run([sys.executable, "-c", program, str(folder / "step_2_order.py"), str(folder)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.stdout.split() == ["True", "False", "False"], done.stdout + done.stderr
