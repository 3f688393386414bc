"""``mg.jit.isinstance``: torch.jit.isinstance, the check of typing's parameterized containers.

torchaudio's ``spectrogram`` (and so ``Spectrogram``, ``MelSpectrogram``, ``MFCC``,
``spectral_centroid``) asks ``torch.jit.isinstance(normalized, str)`` on every call; renamed to
``mg`` it was an AttributeError. The answers below are torch 2.13's.
"""
from __future__ import annotations

import warnings
from typing import Dict, List, Optional, Tuple, Union  # noqa: UP035  (the spellings TorchScript code writes)

import pytest

import minigrad_ckpt as mg


def get_spec_norms(normalized: Union[str, bool]) -> tuple[bool, bool]:  # noqa: UP007
    """torchaudio.functional.functional._get_spec_norms, renamed."""
    frame_length_norm, window_norm = False, False
    if mg.jit.isinstance(normalized, str):
        if normalized not in ["frame_length", "window"]:
            raise ValueError(f"Invalid normalized parameter: {normalized}")
        if normalized == "frame_length":
            frame_length_norm = True
        elif normalized == "window":
            window_norm = True
    elif mg.jit.isinstance(normalized, bool):
        if normalized:
            window_norm = True
    else:
        raise TypeError("Input type not supported")
    return frame_length_norm, window_norm


def test_torchaudio_spec_norms_reads_its_argument():
    assert get_spec_norms(True) == (False, True)
    assert get_spec_norms(False) == (False, False)
    assert get_spec_norms("frame_length") == (True, False)
    with pytest.raises(TypeError):
        get_spec_norms(1.5)


# (object, type, torch 2.13's answer)
TORCH_ANSWERS = [
    (1, int, True),
    (True, int, True),
    (3, float, False),
    (3.0, float, True),
    ([1, 2], List[int], True),  # noqa: UP006
    ([1, "a"], List[int], False),  # noqa: UP006
    ([[1], [2]], List[List[int]], True),  # noqa: UP006
    ([[1], ["b"]], List[List[int]], False),  # noqa: UP006
    ((1, "a"), Tuple[int, str], True),  # noqa: UP006
    ((1, "a", 2), Tuple[int, str], False),  # noqa: UP006
    ({"a": 1}, Dict[str, int], True),  # noqa: UP006
    ({"a": "b"}, Dict[str, int], False),  # noqa: UP006
    ({"a": [1]}, Dict[str, List[int]], True),  # noqa: UP006
    (None, Optional[int], True),  # noqa: UP045
    (2, Optional[int], True),  # noqa: UP045
    ("x", Optional[int], False),  # noqa: UP045
    ("a", (int, str), True),
    (1.5, (int, str), False),
    ([1], list[int], True),
    ((1, 2), tuple[int, int], True),
    (3, int | None, True),
]


@pytest.mark.parametrize("obj, target, answer", TORCH_ANSWERS)
def test_answers_as_torch(obj, target, answer):
    assert mg.jit.isinstance(obj, target) is answer


def test_tensors_in_containers():
    assert mg.jit.isinstance([mg.ones(2), mg.zeros(1)], List[mg.Tensor])  # noqa: UP006
    assert not mg.jit.isinstance([mg.ones(2), 1], List[mg.Tensor])  # noqa: UP006


def test_empty_container_warns_at_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert mg.jit.isinstance([], List[float])  # noqa: UP006
    assert len(caught) == 1 and "The inner type of a container is lost" in str(caught[0].message)
    assert caught[0].filename == __file__


def test_bare_container_and_non_type_refused_as_torch():
    with pytest.raises(RuntimeError, match=r"Attempted to use List without a contained type\. "
                                           r"Please add a contained type, e\.g\. List\[int\]"):
        mg.jit.isinstance([1], List)  # noqa: UP006
    with pytest.raises(RuntimeError, match="must be a type or a tuple of types"):
        mg.jit.isinstance(1, [int])


@pytest.mark.parametrize("bare", [list, tuple, Tuple, Optional])  # noqa: UP006
def test_every_bare_container_is_refused_as_torch(bare):
    # torch 2.13 refuses the builtin classes as it refuses typing's bare aliases
    name = getattr(bare, "__name__", None) or bare._name
    with pytest.raises(RuntimeError, match=rf"^Attempted to use {name} without a contained type\. "
                                           rf"Please add a contained type, e\.g\. {name}\[int\]$"):
        mg.jit.isinstance([1], bare)


@pytest.mark.parametrize("bare", [dict, Dict])  # noqa: UP006
def test_a_bare_dict_is_refused_in_torchs_plural(bare):
    name = getattr(bare, "__name__", None) or bare._name
    with pytest.raises(RuntimeError, match=rf"^Attempted to use {name} without contained types\. "
                                           rf"Please add contained type, e\.g\. {name}\[int, int\]$"):
        mg.jit.isinstance({1: 2}, bare)


def test_the_module_still_uses_pythons_isinstance_inside():
    assert mg.jit.script(abs) is abs
    with pytest.raises(TypeError, match="cond must be a bool"):
        mg.jit._check(mg.tensor(True))
