"""Attention and padding inputs that do not fit raise what PyTorch raises (``RuntimeError``, recorded
from torch 2.13 by tests/data/make_attention_error_types.py for the calls in
tests/data/attention_error_cases.py): ``scaled_dot_product_attention``'s shape checks, ``attn_mask``
with ``is_causal``, grouped-query heads, ``MultiheadAttention``'s mask shape and ``pad_sequence``'s
``padding_side``. The engine raised ``ValueError``, which a PyTorch handler does not catch; it is
still a ``ValueError`` (``InputMismatch`` is both)."""

from __future__ import annotations

import builtins
import json
import sys
from pathlib import Path

import pytest

import minigrad_ckpt as mg

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from attention_error_cases import CASES, call  # noqa: E402

sys.path.remove(str(DATA))
RAISED = json.loads((DATA / "attention_error_types.json").read_text())["raised"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_type_is_pytorchs(name):
    expected = getattr(builtins, RAISED[name])
    with pytest.raises(ValueError) as info:  # the engine's type before, kept
        call(mg, *CASES[name])
    assert isinstance(info.value, expected), (name, type(info.value).__mro__)
