"""The save/load tests' one helper: an object written by ``mg.save`` into memory and read back by ``mg.load``."""
from __future__ import annotations

import io
from typing import Any

import minigrad_ckpt as mg


def round_trip(obj: Any, **load_keywords: Any) -> Any:
    """``obj`` saved and loaded again (``load_keywords`` go to ``mg.load``: ``map_location``, ...)."""
    buffer = io.BytesIO()
    mg.save(obj, buffer)
    buffer.seek(0)
    return mg.load(buffer, **load_keywords)
