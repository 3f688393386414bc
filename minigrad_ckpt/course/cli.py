"""``minigrad-ckpt course list | start N | check N [FILE]`` -- build the engine yourself, step by step."""

from __future__ import annotations

import argparse
from pathlib import Path

from .steps import STEPS, check, start

__all__ = ["add_parser"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add the ``course`` command and its actions to the top-level command line."""
    p = sub.add_parser("course", help="build a small autograd engine yourself, graded by this engine's checks",
                       description="A course in small steps: `start N` writes a stub file to fill in, "
                                   "`check N` grades it and explains each failure (docs/course.md).")
    actions = p.add_subparsers(dest="course_command", metavar="ACTION", required=True)
    ls = actions.add_parser("list", help="the steps, and which of their files are in this directory")
    ls.set_defaults(func=list_steps)
    st = actions.add_parser("start", help="write step N's stub file to the current directory")
    st.add_argument("step", type=int, help="the step's number (see `course list`)")
    st.add_argument("--force", action="store_true", help="overwrite the file if it exists (default: refuse)")
    st.set_defaults(func=start_step)
    ck = actions.add_parser("check", help="grade your file for step N; exit code 0 when every check passes")
    ck.add_argument("step", type=int, help="the step's number")
    ck.add_argument("file", nargs="?", help="your file (default: the step's file name in the current directory)")
    ck.set_defaults(func=check_step)


def list_steps(args: argparse.Namespace) -> int:
    """Print each step's number, title and file, marking the files already in the current directory."""
    for step in STEPS:
        mark = "(started)" if Path(step.file_name).exists() else ""
        print(f"{step.number}  {step.title}\n   {step.file_name} {mark}".rstrip())
    print("\nStart with: minigrad-ckpt course start 1")
    return 0


def start_step(args: argparse.Namespace) -> int:
    """Write the stub and say what to do next."""
    path = start(args.step, force=args.force)
    print(f"wrote {path}: read its docstring, fill in the parts that raise NotImplementedError, then run\n"
          f"  minigrad-ckpt course check {args.step}")
    return 0


def check_step(args: argparse.Namespace) -> int:
    """Grade the file and print the report; 0 when every check passes, 1 otherwise."""
    report = check(args.step, args.file)
    print(report)
    return 0 if report.ok else 1
