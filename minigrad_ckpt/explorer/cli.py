"""``minigrad-ckpt explore SNAPSHOT --out tape.html`` -- the tape explorer for a snapshot's tape.

A snapshot holds a tape when it was saved with ``SnapshotConfig(include_tape=True)``
(``SnapshotConfig.for_training()``) from an executor that recorded one
(``Executor.record(loss)`` after the forward pass, before backward).  The tape is
rebuilt on fresh copies of the snapshot's tensors (:meth:`Snapshot.restore`), so
running backward on it to fill the page touches nothing else.  A stored tape has
no checkpointed segments (a snapshot refuses to store dropped values), so the
ledger's timeline is counted from the tape's saved arrays
(:mod:`minigrad_ckpt.explorer.record`).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..snapshot.format import SnapshotError
from ..snapshot.snapshot import Snapshot
from .page import explore

__all__ = ["add_parser", "run"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("explore", help="write the tape explorer (one HTML page) for the tape a snapshot holds",
                       description="Rebuild the forward tape a snapshot holds, run backward on it step by step "
                                   "and write the tape explorer: one self-contained HTML page that plays the "
                                   "backward pass node by node.")
    p.add_argument("snapshot", help="a .mgsnap file saved with include_tape=True")
    p.add_argument("--out", default="tape.html", help="the page to write (default: tape.html)")
    p.add_argument("--max-values", type=_non_negative, default=8,
                   help="arrays with at most this many elements are written out, larger ones as "
                        "statistics (default: 8)")
    p.set_defaults(func=run, parser=p)


def run(args: argparse.Namespace) -> int:
    snap = Snapshot.load(args.snapshot)
    if snap.state.get("tape") is None:
        raise SnapshotError(
            f"{args.snapshot} holds no tape: save it with SnapshotConfig(include_tape=True) (or "
            f"SnapshotConfig.for_training()) after Executor.record(loss), before backward")
    _refuse_overwriting_the_input(args.parser, args.out, snap)
    ex = snap.restore()
    names = {id(t): name for name, t in ex.live_tensors().items()}
    title = f"Tape explorer: {Path(args.snapshot).name} (iteration {ex.iteration})"
    out = explore(ex.tape, args.out, names=names, max_values=args.max_values, title=title)
    print(f"wrote {out}: {len(snap.state['tape']['nodes'])} ops; open it in a browser")
    return 0


def _non_negative(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
    return n


def _refuse_overwriting_the_input(parser: argparse.ArgumentParser, out: str, snap: Snapshot) -> None:
    """``--out`` is not the snapshot read, nor a base it reads from: ``explore s.mgsnap --out
    s.mgsnap`` wrote the page over the snapshot, and the training state it held was gone.  A usage
    error (``parser.error``: the usage and one line, exit 2)."""
    if not os.path.exists(out):
        return
    link: Snapshot | None = snap
    while link is not None:
        if link.path is not None and os.path.samefile(out, link.path):
            what = "the snapshot" if link is snap else "a base snapshot it reads"
            parser.error(f"--out {out} is {what}: writing the page there would destroy it; "
                         f"name another file (default: tape.html)")
        link = link.base
