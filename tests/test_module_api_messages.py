"""``nn.Module``'s API answers as PyTorch's (recorded from torch 2.13 by
tests/data/make_torch_module_api_messages.py for the calls in tests/data/module_api_message_cases.py):
an InstanceNorm without running stats refuses them from a state dict of no known version even when not
strict (the engine loaded it, reporting them as unexpected), ``load_state_dict`` of a non-mapping, a name
to register that is a method already (the engine registered ``add_module("train", ...)``), the dotted-name
and non-tensor buffer messages, ``get_submodule``/``get_parameter``/``get_buffer``'s errors and the
missing-``forward`` message."""

from __future__ import annotations

import builtins
import importlib.util
import json
from collections import OrderedDict
from pathlib import Path

import pytest

import minigrad_ckpt as mg

DATA = Path(__file__).parent / "data"
_CASES_SPEC = importlib.util.spec_from_file_location("module_api_message_cases", DATA / "module_api_message_cases.py")
_cases = importlib.util.module_from_spec(_CASES_SPEC)
_CASES_SPEC.loader.exec_module(_cases)
CASES, answer = _cases.CASES, _cases.answer
ANSWERS = json.loads((DATA / "torch_module_api_messages.json").read_text())["answers"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_answer_is_pytorchs(name):
    assert answer(mg, name) == ANSWERS[name]
    if ANSWERS[name][0] == "raised":  # the type is builtins' own (a subclass would be caught as well)
        with pytest.raises(getattr(builtins, ANSWERS[name][1])):
            CASES[name](mg)


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_instance_norm_refuses_old_stats_on_every_device(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)
    norm = mg.nn.InstanceNorm2d(3, affine=True).to(device=device, dtype=dtype)
    saved = mg.nn.InstanceNorm2d(3, affine=True, track_running_stats=True).state_dict()
    saved["weight"] = mg.full((3,), 2.0)
    with pytest.raises(RuntimeError, match="Unexpected running stats buffer"):
        norm.load_state_dict(OrderedDict(saved), strict=False)
    assert norm.weight.tolist() == [1.0, 1.0, 1.0]  # refused before anything is copied
    keys = norm.load_state_dict(saved, strict=False)  # its metadata says version 2: merely unexpected
    assert sorted(keys.unexpected_keys) == ["num_batches_tracked", "running_mean", "running_var"]
    assert norm.weight.tolist() == [2.0, 2.0, 2.0] and norm.weight.device == mg.device(device)
    assert norm.weight.dtype == dtype


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_buffer_assigned_moves_with_its_module(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)
    m = mg.nn.Linear(2, 2)
    m.scale = mg.nn.Buffer(mg.full((2,), 3.0))
    m.count = mg.nn.Buffer(mg.zeros(1, dtype=mg.int64), persistent=False)
    m.to(device=device, dtype=dtype)
    assert m.scale.device == mg.device(device) and m.scale.dtype == dtype and m.count.dtype == mg.int64
    assert list(m.state_dict()) == ["weight", "bias", "scale"]
    assert [n for n, _ in m.named_buffers()] == ["scale", "count"]
    other = mg.nn.Linear(2, 2)
    other.scale = mg.nn.Buffer(mg.zeros(2))
    other.load_state_dict(m.state_dict())
    assert other.scale.tolist() == [3.0, 3.0]
