"""``complex``, ``polar``, ``view_as_real`` and ``view_as_complex`` refuse their arguments with
PyTorch's ``RuntimeError`` and its words.

``mg.complex`` and ``mg.polar`` of integer, complex or mixed float parts raised a bare
``TypeError``, which ``except RuntimeError`` (PyTorch's class) does not catch; the view functions
raised the right class in the engine's words only.  Found running PyTorch's complex tests
(test/test_complex.py, test/autograd/test_complex.py) against the engine and comparing the
refusals.  Each error is still a ``TypeError`` too, as the engine's were; the words below are
torch 2.13's, pasted as literals.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg

F32, F64 = mg.ones(2), mg.ones(2, dtype=mg.float64)
PARTS = {
    "integers": ((mg.ones(2, dtype=mg.int64), mg.ones(2, dtype=mg.int64)),
                 "Expected both inputs to be Half, Float or Double tensors but got Long and Long"),
    "a complex part": ((mg.ones(2) * 1j, F32),
                       "Expected both inputs to be Half, Float or Double tensors but got ComplexFloat and Float"),
    "mixed floats": ((F32, F64), "Expected object of scalar type Float but got scalar type Double for second argument"),
}


@pytest.mark.parametrize("name", ["complex", "polar"])
@pytest.mark.parametrize("case", sorted(PARTS))
def test_parts_of_a_complex_number(name, case):
    args, words = PARTS[case]
    with pytest.raises(RuntimeError, match=f"^{name}: {words}") as caught:
        getattr(mg, name)(*args)
    assert isinstance(caught.value, TypeError)


VIEWS = {
    "view_as_real of reals": (lambda: mg.view_as_real(F32), "view_as_real is only supported for complex tensors"),
    "view_as_complex of integers": (lambda: mg.view_as_complex(mg.ones(3, 2, dtype=mg.int64)),
                                    "view_as_complex is only supported for half, float and double tensors, "
                                    "but got a tensor of scalar type: Long"),
    "view_as_complex of a scalar": (lambda: mg.view_as_complex(mg.tensor(1.0)),
                                    "Input tensor must have one or more dimensions"),
    "view_as_complex of threes": (lambda: mg.view_as_complex(mg.ones(3, 3)),
                                  "Tensor must have a last dimension of size 2"),
}


@pytest.mark.parametrize("case", sorted(VIEWS))
def test_the_views(case):
    call, words = VIEWS[case]
    with pytest.raises(RuntimeError, match=words) as caught:
        call()
    assert isinstance(caught.value, TypeError)
