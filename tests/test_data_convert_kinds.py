"""``default_convert`` and ``default_collate`` of every kind of NumPy object against torch 2.13's
answers, recorded by ``tests/data/make_torch_default_convert_kinds.py`` (the test never imports
torch): ``ndarray``, ``memmap``, ``matrix`` and scalars become tensors; a ``MaskedArray`` or a
``recarray`` (a subclass from a NumPy submodule) passes through ``default_convert`` unchanged, so
its mask is not silently dropped."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from minigrad_ckpt.utils.data import DataLoader, default_collate, default_convert

DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(DATA))
from default_convert_cases import cases, describe  # noqa: E402

TORCH = json.loads((DATA / "torch_default_convert_kinds.json").read_text())


def _answer(fn, obj):
    try:
        return describe(fn(obj))
    except Exception as exc:  # noqa: BLE001 -- the error type is the answer
        return ["error", type(exc).__name__]


@pytest.mark.parametrize("name", sorted(TORCH["convert"]))
def test_default_convert_matches_torch(name, tmp_path):
    assert _answer(default_convert, cases(str(tmp_path))[name]) == TORCH["convert"][name]


@pytest.mark.parametrize("name", sorted(TORCH["collate"]))
def test_default_collate_matches_torch(name, tmp_path):
    assert _answer(lambda o: default_collate([o, o]), cases(str(tmp_path))[name]) == TORCH["collate"][name]


def test_a_masked_sample_keeps_its_mask_through_an_unbatched_loader(tmp_path):
    # torch: DataLoader([masked], batch_size=None) yields the MaskedArray itself (before: a tensor of
    # its data, the masked-out 2.0 silently unmasked)
    masked = cases(str(tmp_path))["masked_array"]
    (out,) = list(DataLoader([masked], batch_size=None))
    assert out is masked and out.mask.tolist() == [False, True]
