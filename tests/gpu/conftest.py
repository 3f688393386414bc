"""The GPU set: ``pytest -m gpu``.  Skipped cleanly unless CuPy sees a CUDA GPU."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg


def pytest_collection_modifyitems(config, items):
    if mg.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="no CUDA GPU (CuPy not installed or no device visible)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
