"""The ``minigrad-ckpt`` command line: ``--version``, ``--help`` and subcommands.

Errors are for people: a usage error prints the usage and one ``error:`` line
(exit 2); a failure prints one ``error: <message>`` line on stderr (exit 1).
No traceback, unless ``MINIGRAD_CKPT_TRACEBACK=1`` is set in the environment
(for reporting a bug).  Output piped into ``head`` ends quietly.
"""

from __future__ import annotations

import argparse
import os
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
    d.set_defaults(func=demo.main, parser=d)

    from .snapshot import cli as snapshot_cli

    snapshot_cli.add_parser(sub)
    from .explorer import cli as explorer_cli

    explorer_cli.add_parser(sub)

    from .course import cli as course_cli

    course_cli.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    from .demo import UsageError

    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        getattr(args, "parser", parser).error(str(exc))  # usage + one error line, exit 2
    except BrokenPipeError:
        # The reader (``| head``) went away: stop quietly.  Point stdout at
        # devnull so the interpreter's final flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if os.environ.get("MINIGRAD_CKPT_TRACEBACK"):
            raise
        print(f"error: {_message(exc)}", file=sys.stderr)
        return 1
    return 0  # not reached: parser.error exits


def _message(exc: BaseException) -> str:
    """One line for people: the exception's own message, its type only when that says more."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, (ValueError, OSError, RuntimeError, ImportError, KeyError, TypeError)):
        if isinstance(exc, KeyError) and len(exc.args) == 1:
            text = str(exc.args[0])
        return text
    return f"{type(exc).__name__}: {text}"


if __name__ == "__main__":
    sys.exit(main())
