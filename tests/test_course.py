"""The course: every step's reference solution passes its checks, every stub fails them, and the
usual mistakes are explained in words that point at the fix."""

from __future__ import annotations

import ast
import contextlib
import runpy
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from minigrad_ckpt import course
from minigrad_ckpt.cli import main
from minigrad_ckpt.ops import registry

pytest.importorskip("hypothesis")

STEP_NUMBERS = [s.number for s in course.STEPS]


@pytest.mark.parametrize("number", STEP_NUMBERS)
def test_the_reference_solution_passes_every_check(number):
    report = course.check(number, course.get_step(number).solution)
    assert report.ok, str(report)
    assert report.passed == [c.name for c in course.get_step(number).checks()]


@pytest.mark.parametrize("number", STEP_NUMBERS)
def test_the_stub_fails_and_says_what_to_write(number, tmp_path):
    path = course.start(number, tmp_path)
    assert path.name == course.get_step(number).file_name
    report = course.check(number, path)
    assert not report.ok
    first = report.failures[0]
    assert "NotImplementedError" in first.got and "not written yet" in first.hint, str(report)
    assert f"step {number}" in first.got  # the stub's own message says which step


@contextlib.contextmanager
def _registry_kept():
    """Running a file as a script registers its op classes: take them out again afterwards."""
    before = dict(registry)
    try:
        yield
    finally:
        registry.clear()
        registry.update(before)


def _example(stub: Path) -> types.CodeType:
    """The body of the stub's ``if __name__ == "__main__":`` block (the example a learner runs)."""
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test))
    return compile(ast.Module(body=block.body, type_ignores=[]), str(stub), "exec")


@pytest.mark.parametrize("number", STEP_NUMBERS)
def test_the_example_at_the_end_of_each_stub_runs_on_the_solution(number, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # step 7's example writes a file
    step = course.get_step(number)
    with _registry_kept():  # the stub's names, with what the learner writes taken from the solution
        names = {**runpy.run_path(str(step.stub)), **runpy.run_path(str(step.solution))}
        exec(_example(step.stub), names)
    assert capsys.readouterr().out.strip()
    with _registry_kept(), pytest.raises(NotImplementedError, match=f"step {number}"):
        runpy.run_path(str(step.stub), run_name="__main__")


def _mutant(tmp_path: Path, number: int, old: str, new: str) -> Path:
    """The reference solution with one mistake planted (``old`` must occur in it)."""
    step = course.get_step(number)
    text = step.solution.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / step.file_name
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


# (step, planted mistake: old -> new, the failing check starts with, words the explanation must contain)
MISTAKES = [
    (1, ("other.grad += self.data * out.grad", "other.grad = self.data * out.grad"),
     "backward() of small expressions", "a * a"),
    (1, ("    def __rmul__(self, other):\n        return self * other\n", ""),
     "+ and * make new Values", "__rmul__"),
    (1, ("self.grad = 1.0\n", "self.grad = 0.0\n"), "backward() of small expressions", "a.grad"),
    (2, ("reversed(topological_order(root))", "topological_order(root)"),
     "backward of that graph", "reversed"),
    (2, ("order.append(v)  # second visit", "order.insert(0, v)  # second visit"),
     "topological_order of a graph", "after all of its inputs"),
    (3, ("return summed.reshape(shape)", "return summed.squeeze()"), "sum_to_shape of a few gradients",
     "keepdims"),
    (3, ("grad.sum(axis=tuple(range(extra)))", "grad[(0,) * extra]"), "sum_to_shape of a few gradients",
     "the sum of those"),
    (4, ("return g * xp.exp(y), g * out", "return g * xp.exp(y), out"), "backward matches central",
     "input 1 (y)"),
    (4, ("save_output = True", "save_output = False"), "backward matches central", "save_output"),
    # (np.exp of the battery's Tensors is the engine's exp since NumPy's ufuncs take tensors: the GPU-like
    # device, whose arrays refuse NumPy's functions as CuPy's do, is what catches it)
    (4, ("return g * xp.exp(y), g * out", "return g * __import__('numpy').exp(y), g * out"),
     "forward and backward on a GPU-like device", "xp.<function>"),
    (5, ("None if ty is None else xp.sin(x) * ty", "None if ty is None else xp.cos(x) * ty"),
     "jvp with both tangents", "sin(x) * ty"),
    (5, ("return add_tangents(None if tx is None else xp.cos(x) * y * tx, None if ty is None else xp.sin(x) * ty)",
         "return xp.cos(x) * y * tx + xp.sin(x) * ty"), "jvp with one tangent None", "add_tangents"),
    (6, ("return apply(Replay(fn=fn), *inputs)", "return fn(*inputs)"), "fewer bytes held", "mg.no_grad()"),
    (6, ("return tuple(gi.numpy() for gi in grads)", "return tuple(gi.numpy() * 1.0000001 for gi in grads)"),
     "same output and gradients", "bit for bit"),
    (6, ("with mg.enable_grad():  # backward runs", "if True:  # backward runs"), "same output and gradients",
     "mg.enable_grad()"),
    (7, ("if hashlib.sha256(outer[\"payload\"]).hexdigest() != outer.get(\"checksum\"):",
         "if False:"), "a file with any one bit flipped", "checksum"),
    (7, ("np.ascontiguousarray(a).tobytes()", "a.data.tobytes() if a.flags.c_contiguous else a.T.tobytes()"),
     "save then load", "ascontiguousarray"),
    (7, (".reshape(e[\"shape\"]).copy()", ".reshape(e[\"shape\"])"), "save then load", "read-only"),
    (7, ("\"dtype\": a.dtype.str", "\"dtype\": \"<f8\""), "save then load", "dtype"),
    (3, ("if n == 1 and summed.shape[i] != 1", "if n == 1 and summed.shape[i] > 1"),
     "sum_to_shape of a few gradients", "sum_to_shape(grad of shape (2, 0), (1,)) to run without an error"),
    (3, ("raise ValueError(f\"shapes", "return None or ValueError(f\"shapes"),
     "broadcast_shape refuses", "ValueError"),
    (3, ("out.append(j if i == 1 else i)", "out.append(max(i, j))"), "broadcast_shape of a few shapes",
     "(2, 0)"),
]


@pytest.mark.parametrize("number, change, check, words", MISTAKES,
                         ids=[f"step{m[0]}-{m[3]}" for m in MISTAKES])
def test_a_planted_mistake_fails_with_an_explanation(tmp_path, number, change, check, words):
    report = course.check(number, _mutant(tmp_path, number, *change))
    assert not report.ok
    failure = report.failures[0]
    assert failure.check.startswith(check), str(report)
    explanation = f"{failure.expected} {failure.got} {failure.hint}"
    assert words in explanation, str(report)
    assert failure.hint and failure.expected and failure.got


def test_an_error_in_the_learners_code_names_the_case_and_the_line(tmp_path):
    path = _mutant(tmp_path, 3, "if n == 1 and summed.shape[i] != 1", "if n == 1 and summed.shape[i] > 1")
    failure = course.check(3, path).failures[0]
    line = next(i for i, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if "return summed.reshape(shape)" in text)
    assert failure.got.startswith("ValueError: cannot reshape")
    assert f"(line {line} of {path.name}: `return summed.reshape(shape)`)" in failure.got


def test_a_gradient_failure_names_the_worst_element_without_dumping_matrices(tmp_path):
    path = _mutant(tmp_path, 4, "return g * xp.exp(y), g * out", "return g * xp.exp(y), x * out")
    failure = course.check(4, path).failures[0]
    assert failure.check == "backward matches central differences (gradcheck)"
    assert "input 1 (y)" in failure.expected and "worst at output element" in failure.got
    assert "\n" not in failure.got and "[[" not in failure.got and "times g" in failure.hint


def test_a_recursive_search_is_told_to_use_a_stack(tmp_path):
    recursive = '''def topological_order(root):
    order, seen = [], set()

    def visit(v):
        if id(v) not in seen:
            seen.add(id(v))
            for p in v._prev:
                visit(p)
            order.append(v)

    visit(root)
    return order


def backward(root):'''
    step = course.get_step(2)
    text = step.solution.read_text(encoding="utf-8")
    head, _, tail = text.partition("def topological_order(root):")
    _, _, tail = tail.partition("def backward(root):")
    path = tmp_path / step.file_name
    path.write_text(head + recursive + tail, encoding="utf-8")
    report = course.check(2, path)
    assert [f.check for f in report.failures] == ["a chain of 5000 ops (no recursion limit)"], str(report)
    assert "explicit stack" in report.failures[0].hint


def test_a_file_that_does_not_import_names_its_line(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("x = 1\ny = undefined_name + 1\n", encoding="utf-8")
    report = course.check(1, path)
    assert [f.check for f in report.failures] == ["import"]
    assert "NameError" in report.failures[0].got and "line 2 of mine.py" in report.failures[0].got
    assert len(report.not_run) == len(course.get_step(1).checks())
    assert not [m for m in sys.modules if m.startswith("minigrad_ckpt_course_learner")]  # not left behind


def test_an_endless_loop_is_stopped_and_reported(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("class Value:\n    def __init__(self, data):\n        while True:\n            pass\n",
                    encoding="utf-8")
    report = course.check(1, path, time_limit=0.5)
    assert [f.check for f in report.failures] == ["Value(2.0) holds data and a zero grad"], str(report)
    assert "still running after 0.5 s" in report.failures[0].got and "line 3 of mine.py" in report.failures[0].got
    assert "endless loop" in report.failures[0].hint
    looping_import = tmp_path / "loops.py"
    looping_import.write_text("while True:\n    pass\n", encoding="utf-8")
    report = course.check(1, looping_import, time_limit=0.5)
    assert [f.check for f in report.failures] == ["import"] and "0.5 s" in report.failures[0].got


def test_a_missing_name_is_named(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("class Valu:\n    pass\n", encoding="utf-8")
    report = course.check(1, path)
    assert "`Value`" in report.failures[0].expected


def test_start_refuses_to_overwrite_unless_forced(tmp_path):
    path = course.start(1, tmp_path)
    path.write_text("my work", encoding="utf-8")
    with pytest.raises(FileExistsError, match="already exists"):
        course.start(1, tmp_path)
    assert path.read_text(encoding="utf-8") == "my work"
    course.start(1, tmp_path, force=True)
    assert path.read_text(encoding="utf-8") == course.get_step(1).stub.read_text(encoding="utf-8")


def test_unknown_steps_and_missing_files_are_refused(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="there is no step 99"):
        course.start(99, tmp_path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match="course start 1"):
        course.check(1)


def test_checking_leaves_the_op_registry_as_shipped(tmp_path):
    before = dict(registry)
    path = tmp_path / "ops.py"
    path.write_text("from minigrad_ckpt.ops import Op\n\nclass LearnerOnlyOp(Op):\n"
                    "    def forward(self, xp, x):\n        return x\n", encoding="utf-8")
    course.check(1, path)
    assert registry == before


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "minigrad_ckpt", "course", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env=_env())


def _env() -> dict:
    import os

    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_the_command_line_end_to_end(tmp_path):
    started = _cli(tmp_path, "start", "1")
    assert started.returncode == 0, started.stderr
    assert (tmp_path / "step_1_value.py").exists() and "course check 1" in started.stdout
    failing = _cli(tmp_path, "check", "1")
    assert failing.returncode == 1 and "FAIL" in failing.stdout and "hint:" in failing.stdout
    shutil.copyfile(course.get_step(1).solution, tmp_path / "step_1_value.py")
    passing = _cli(tmp_path, "check", "1")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "all checks pass" in passing.stdout
    assert not list(tmp_path.glob("__pycache__"))  # grading writes no bytecode beside the learner's file


def test_the_command_line_in_process(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["course", "list"]) == 0
    listed = capsys.readouterr().out
    assert all(s.file_name in listed for s in course.STEPS) and "(started)" not in listed
    assert main(["course", "start", "2"]) == 0
    main(["course", "list"])
    assert "step_2_order.py (started)" in capsys.readouterr().out
    assert main(["course", "check", "2"]) == 1
    assert main(["course", "check", "2", str(course.get_step(2).solution)]) == 0
    assert "all checks pass" in capsys.readouterr().out
    assert main(["course", "start", "2", "--force"]) == 0
    assert main(["course", "start", "2"]) == 1
    assert "already exists" in capsys.readouterr().err
    assert main(["course", "check", "3"]) == 1
    assert "does not exist" in capsys.readouterr().err
