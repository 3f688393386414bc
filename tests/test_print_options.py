"""``mg.set_printoptions`` (PyTorch's ``torch.set_printoptions``; an AttributeError before) changes
how a Tensor prints as PyTorch's does: ``precision``, summarizing by ``threshold`` and ``edgeitems``,
``linewidth``, ``sci_mode`` and the profiles, ``profile="default"`` restoring the start.

Expected: torch 2.13's repr of the same tensors (``tests/data/make_torch_print_options.py``).  The
engine prints in NumPy's style (``1.5`` where PyTorch writes ``1.5000``; see ``minigrad_ckpt/printing.py``),
so the numbers shown, the summarizing and the line breaks are compared, not the spacing.
"""
from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.printing import get_printoptions, printoptions
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the "strict" devices)

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from print_option_cases import CASES  # noqa: E402

TORCH = json.loads((DATA / "torch_print_options.json").read_text())
IDS = [str(case[0]) for case in CASES]
NUMBER = re.compile(r"-?\d+\.?\d*(?:e[+-]\d+)?")


@pytest.fixture(autouse=True)
def _default_options():
    mg.set_printoptions(profile="default")
    yield
    mg.set_printoptions(profile="default")


def _values_part(text: str) -> str:
    return text.split("dtype=")[0].split("device=")[0]


@pytest.mark.parametrize("case, torch_answer", list(zip(CASES, TORCH)), ids=IDS)
@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_options_print_the_numbers_torch_prints(case, torch_answer, device):
    options, values, dtype = case
    mg.set_printoptions(**options)
    ours = repr(mg.tensor(values, dtype=dtype, device=device))
    theirs = torch_answer["repr"]
    precision = get_printoptions()["precision"]
    got = [float(n) for n in NUMBER.findall(_values_part(ours))]
    want = [float(n) for n in NUMBER.findall(_values_part(theirs))]
    assert len(got) == len(want), (ours, theirs)
    for g, w in zip(got, want):  # PyTorch may switch to exponents where NumPy does not: equal to the digits shown
        assert math.isclose(g, w, rel_tol=10.0 ** -precision, abs_tol=10.0 ** -precision), (ours, theirs)
    assert ours.count("...") == theirs.count("...")
    if options.get("sci_mode") is not None:  # forced on or off: exponents exactly when PyTorch shows them
        assert bool(re.search(r"\de[+-]", ours)) == options["sci_mode"] == bool(re.search(r"\de[+-]", theirs))
    assert (ours.count("\n") == 0) == (theirs.count("\n") == 0)
    assert max(len(line) for line in _values_part(ours).splitlines()) <= get_printoptions()["linewidth"]


@pytest.mark.parametrize("case, torch_answer", list(zip(CASES, TORCH)), ids=IDS)
def test_get_printoptions_reads_back_what_was_set(case, torch_answer):
    options = case[0]
    mg.set_printoptions(**options)
    got, want = get_printoptions(), {k: (math.inf if v is None and k == "threshold" else v)
                                     for k, v in torch_answer["options"].items()}
    keys = set(want) if options.get("profile") == "short" else set(options) - {"profile"} | {"sci_mode"}
    assert {k: got[k] for k in keys} == {k: want[k] for k in keys}
    mg.set_printoptions(**got)  # the dict goes back in as PyTorch's does
    assert get_printoptions() == got


def test_default_profile_restores_the_start():
    start, before = get_printoptions(), repr(mg.tensor([0.123456789, 2.0]))
    mg.set_printoptions(precision=2, threshold=3, edgeitems=1, linewidth=20, sci_mode=True)
    assert repr(mg.tensor([0.123456789, 2.0])) != before
    mg.set_printoptions(profile="default")
    assert get_printoptions() == start and repr(mg.tensor([0.123456789, 2.0])) == before
    assert repr(mg.tensor([0.5, 2.0], dtype=mg.float32)) == "tensor([0.5, 2. ])"  # unchanged by this change


def test_printoptions_block_restores_and_grad_suffix_stays():
    x = mg.tensor([1.23456, 2.0], requires_grad=True)
    with printoptions(precision=1):
        assert repr(x * 2) == "tensor([2.5, 4. ], grad_fn=Mul)"
    assert repr(x) == "tensor([1.23456, 2.     ], requires_grad=True)"


def test_the_dtype_is_named_where_torch_names_it():
    # torch 2.13: tensor([1.+2.j]) for complex64, tensor([1.+2.j], dtype=torch.complex128); after
    # set_default_dtype(float64): tensor([1.]) for float64, tensor([1.], dtype=torch.float32), and
    # tensor([1.+2.j], dtype=torch.complex64)
    assert repr(mg.tensor([1 + 2j])) == "tensor([1.+2.j])"
    assert repr(mg.tensor([1 + 2j], dtype=mg.complex128)) == "tensor([1.+2.j], dtype=complex128)"
    mg.set_default_dtype(mg.float64)
    try:
        assert repr(mg.tensor([1.0])) == "tensor([1.])"
        assert repr(mg.tensor([1.0], dtype=mg.float32)) == "tensor([1.], dtype=float32)"
        assert repr(mg.tensor([1 + 2j], dtype=mg.complex64)) == "tensor([1.+2.j], dtype=complex64)"
        assert repr(mg.tensor([1])) == "tensor([1])"
    finally:
        mg.set_default_dtype(mg.float32)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_an_empty_tensor_of_more_dims_than_one_prints_its_size(device):
    # torch 2.13: the "[]" alone would not tell (0, 3) from (3, 0), so its print says size=
    assert repr(mg.zeros(0, device=device)).startswith("tensor([]")  # (a device but the CPU is named after)
    assert "size" not in repr(mg.zeros(0, device=device))
    assert repr(mg.zeros(0, 3)) == "tensor([], size=(0, 3))"
    assert repr(mg.zeros(2, 0, dtype=mg.int32)) == "tensor([], size=(2, 0), dtype=int32)"
    assert repr(mg.zeros(1, 0, 2, requires_grad=True)) == "tensor([], size=(1, 0, 2), requires_grad=True)"
    assert str(mg.zeros(3, 0, device=device)).startswith("tensor([], size=(3, 0)")
