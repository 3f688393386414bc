"""float()/complex() of a tensor that requires grad warn once per process, in PyTorch's words: the
number has left the graph (``lr * float(loss)`` is a constant), which a user converting a loss to
log it wants to know once.  ``int()`` and ``item()`` do not warn (PyTorch's do not).  Each case runs
in a fresh interpreter: the warning is once per process."""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORDS = "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior."


def _warnings_of(program: str) -> str:
    code = "import math, minigrad_ckpt as mg\n" + textwrap.dedent(program)
    done = subprocess.run([sys.executable, "-W", "always", "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert done.returncode == 0, done.stderr
    return done.stderr


@pytest.mark.parametrize("convert", ["float(x)", "complex(x)", "math.exp(x)", "'%f' % x"])
def test_the_first_conversion_warns_once(convert):
    stderr = _warnings_of(f"""
        x = mg.ones((), requires_grad=True) * 2
        for _ in range(3):
            {convert}
        float(mg.ones((), requires_grad=True))
    """)
    assert stderr.count(WORDS) == 1 and "Consider using tensor.detach() first." in stderr


def test_int_item_and_tensors_without_grad_do_not_warn():
    assert WORDS not in _warnings_of("""
        x = mg.ones((), requires_grad=True) * 2
        int(x), x.item(), float(x.detach()), complex(mg.tensor(1.5)), float(mg.ones(1))
        with mg.no_grad():
            float(mg.ones(()) * 3)
            float(x), complex(x)             # (grad mode off: PyTorch's does not warn either)
        p = mg.ones(2, requires_grad=True)   # LBFGS reads its closure's loss under no_grad
        opt = mg.optim.LBFGS([p])

        def closure():
            opt.zero_grad()
            loss = (p ** 2).sum()
            loss.backward()
            return loss
        opt.step(closure)
    """)
