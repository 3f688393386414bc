"""What the tests of the seams share: the programs modules of ``tests/data`` and torch's answers to
them (``tests/data/make_torch_seams.py``), and the devices they run on."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType

import minigrad_ckpt as mg

DATA = Path(__file__).parent / "data"
DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


def programs(module: str) -> ModuleType:
    """The programs module ``tests/data/<module>.py``, written once for torch and the engine."""
    sys.path.insert(0, str(DATA))
    try:
        return importlib.import_module(module)
    finally:
        sys.path.remove(str(DATA))


def torch_answers(section: str) -> dict:
    """torch 2.13's answers to the programs of ``section`` (see ``make_torch_seams.py``)."""
    return json.loads((DATA / "torch_seams.json").read_text())[section]
