"""The tape explorer: a backward pass played node by node in the browser.

``mg.viz.explore(loss, "tape.html")`` runs the pass with
:func:`~minigrad_ckpt.backward_steps` and writes one self-contained HTML page
(:mod:`.page`) from what each step reported (:mod:`.record`), the graph laid
out in layers (:mod:`.layout`).  ``minigrad-ckpt explore SNAPSHOT`` does the
same for the tape a snapshot holds (:mod:`.cli`).
"""

from __future__ import annotations

from .page import explore, write_page
from .record import record_backward, summarize

__all__ = ["explore", "record_backward", "summarize", "write_page"]
