"""The ``minigrad-ckpt`` command line: ``--version``, ``--help`` and subcommands."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="minigrad-ckpt",
        description="minigrad_ckpt: a NumPy/CuPy autograd engine with checkpointing and snapshots.",
    )
    parser.add_argument("--version", action="version", version=f"minigrad-ckpt {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    from . import demo

    d = sub.add_parser("demo", help="train a small character-level transformer (the main job)",
                       description="Train a small character-level causal transformer on the bundled "
                                   "corpus, then print generated text and the final loss.")
    demo.add_arguments(d)
    d.set_defaults(func=demo.main)

    from .snapshot import cli as snapshot_cli

    snapshot_cli.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
