"""Where a warning points: the user's line, the first frame outside the engine.

``warnings.warn``'s ``stacklevel`` counts frames up from the call, but the engine reaches a warning
through a varying number of its own calls -- the wrappers that take ``out=`` or PyTorch's keywords,
a checkpoint's replay, a model's forward -- so a fixed count points into the engine on some paths
and at the user's line on others.  :func:`stacklevel_outside_the_engine` counts the frames instead.
"""

from __future__ import annotations

import os
import sys

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def stacklevel_outside_the_engine() -> int:
    """``warnings.warn``'s ``stacklevel``, seen from the function calling this one, of the first frame
    outside this package (1, that function itself, where every frame is the engine's)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level if frame is not None else 1
