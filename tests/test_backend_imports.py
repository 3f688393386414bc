"""Only the backend imports NumPy or CuPy: every other engine module reaches array
math through a device's namespace (``xp``), so the GPU path needs no second copy."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import minigrad_ckpt

PACKAGE = Path(minigrad_ckpt.__file__).parent
# Host-side tooling, not engine math on device data: the test helpers (they
# build NumPy oracles), the data file generator, and the course's stub files and
# solutions (a learner's own code, written with NumPy as a learner would).
ALLOWED = {"backend.py", "testing/strict.py", "testing/strategies.py", "data/make_corpus.py"}
ALLOWED_FOLDERS = ("course/stubs/", "course/solutions/")


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_only_the_backend_imports_numpy_or_cupy():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in ALLOWED or rel.startswith(ALLOWED_FOLDERS):
            continue
        for name in _imports(path):
            root = name.split(".")[0]
            if root in ("numpy", "cupy", "cupyx"):
                offenders.append(f"{rel} imports {name}")
    assert not offenders, "engine modules must use the backend's namespace:\n" + "\n".join(offenders)


def test_the_check_would_catch_an_offender(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import numpy as np\nfrom cupy import asarray\n")
    assert _imports(bad) == ["numpy", "cupy"]


NO_MSGPACK = """
import sys
sys.modules["msgpack"] = None  # as if it were not installed: importing it raises ImportError
import minigrad_ckpt as mg
x = mg.tensor([1.0, 2.0], requires_grad=True)
(x * x).sum().backward()
assert x.grad.tolist() == [2.0, 4.0]
ex = mg.Executor()
ex.add_tensor("x", x)
try:
    mg.snapshot.Snapshot.from_executor(ex, 0).save(sys.argv[1])
except ImportError as e:
    print(e)
else:
    raise SystemExit("saving a snapshot without msgpack did not fail")
"""


def test_the_engine_works_without_msgpack_and_snapshots_say_what_is_missing(tmp_path):
    r = subprocess.run([sys.executable, "-c", NO_MSGPACK, str(tmp_path / "s.mgsnap")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "snapshots need msgpack" in r.stdout and "pip install" in r.stdout
