"""The SVD family of a matrix holding an infinity never hangs.

OpenBLAS's ``gesdd`` (NumPy's SVD on the host) may loop forever on an infinite entry:
``np.linalg.svd([[inf, inf, inf], [0, 3, 0], [0, 0, 3]])`` does not return, and neither did
``mg.linalg.svd``, ``svdvals``, ``pinv``, ``lstsq``, ``cond``, ``matrix_rank`` and the spectral and
nuclear norms of it (float32 and float64).  Such a matrix is now refused before LAPACK sees it,
with the ``LinAlgError`` a NaN already got (the package's documented answer for a non-finite
matrix: ``linalg_failure``), on the CPU and on the strict stand-in device.  Each call runs in a
child process with a timeout, so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CALLS = [
    "mg.linalg.svd(b)", "mg.linalg.svdvals(b)", "mg.linalg.pinv(b)", "mg.linalg.cond(b)",
    "mg.linalg.matrix_rank(b)", "mg.linalg.matrix_norm(b, 2)", "mg.linalg.matrix_norm(b, 'nuc')",
    "mg.linalg.lstsq(b, mg.ones(3, 1, dtype=b.dtype, device=b.device))", "mg.pinverse(b)",
    "mg.linalg.svd(mg.stack([b * 0 + 1, b]))", "mg.linalg.lstsq(mg.stack([b, b]), mg.ones(2, 3, 1, dtype=b.dtype, "
    "device=b.device))",
]

_PROGRAM = """
import numpy as np, minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401
b = mg.tensor(np.array([[np.inf, np.inf, np.inf], [0, 3, 0], [0, 0, 3]]), dtype={dtype}, device={device!r})
for call in {calls!r}:
    print("calling", call, flush=True)
    try:
        eval(call)
    except mg.linalg.LinAlgError as e:
        assert "non-finite" in str(e), str(e)
        print("refused", call, flush=True)
"""


@pytest.mark.parametrize("device, dtype", [("cpu", "mg.float64"), ("cpu", "mg.float32"), ("strict", "mg.float64"),
                                           ("strict-f32", "mg.float32")])
def test_an_infinite_entry_is_refused_not_a_hang(device, dtype):
    root = Path(__file__).resolve().parents[1]
    program = _PROGRAM.format(dtype=dtype, device=device, calls=CALLS)
    try:  # one child for every call: a hang fails the test (naming the call) instead of the suite
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, cwd=root)
    except subprocess.TimeoutExpired as hung:
        out = hung.stdout.decode() if isinstance(hung.stdout, bytes) else (hung.stdout or "")
        pytest.fail(f"did not return within 60 s on {device} ({dtype}); last: {out.strip().splitlines()[-1:]}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert [line for line in done.stdout.splitlines() if line.startswith("refused")] == [f"refused {c}" for c in CALLS]


def test_a_finite_matrix_is_unchanged():
    import numpy as np

    import minigrad_ckpt as mg

    a = np.array([[2.0, 1.0, 0.0], [0.0, 3.0, 1.0], [1.0, 0.0, 4.0]])
    np.testing.assert_array_equal(mg.linalg.svdvals(mg.tensor(a)).numpy(), np.linalg.svd(a, full_matrices=False)[1])
    np.testing.assert_allclose(mg.linalg.pinv(mg.tensor(a)).numpy(), np.linalg.pinv(a), rtol=1e-14)
