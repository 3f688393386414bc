"""``minigrad-ckpt snapshot inspect | verify | diff`` -- look into snapshot files."""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

from ..backend import host_numpy as np
from . import sections as _sections
from .config import SnapshotConfig
from .format import LoadLimits, SnapshotError, open_regular
from .fsutil import human_bytes
from .sections import read_header
from .snapshot import Snapshot


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("snapshot", help="inspect, verify or compare snapshot files")
    ss = p.add_subparsers(dest="snapshot_command", metavar="ACTION", required=True)
    i = ss.add_parser("inspect", help="metadata and a table of tensors (reads only the header)")
    i.add_argument("path", help="a .mgsnap file")
    i.set_defaults(func=inspect)
    v = ss.add_parser("verify", help="check every checksum; exit code 0 if the snapshot is intact, 1 if not")
    v.add_argument("path", help="a .mgsnap file (an incremental one is checked with its base)")
    v.set_defaults(func=verify)
    d = ss.add_parser("diff", help="which tensors differ between two snapshots, and by how much; "
                                   "exit code 0 if none differ, 1 if some do, 2 if a file cannot be read")
    d.add_argument("a", help="the first .mgsnap file")
    d.add_argument("b", help="the second .mgsnap file")
    d.set_defaults(func=diff)


def _safe(v: object) -> str:
    """``str(v)`` with every non-printable character escaped (``\\x1b``, ``\\u202e``, ...) and backslashes
    doubled: names and metadata come from the file and must not reach the terminal as control sequences."""
    out = []
    for ch in str(v):
        if ch == "\\":
            out.append("\\\\")
        elif ch.isprintable():
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


def _fail(message: object) -> int:
    print(f"error: {_safe(message)}", file=sys.stderr)
    return 1


def inspect(args: argparse.Namespace) -> int:
    path = Path(args.path)
    try:
        f, size, _ = open_regular(path)
        with f:
            header, entries, _ = read_header(f, size, LoadLimits())
    except (SnapshotError, OSError) as exc:
        return _fail(exc)
    # Every field below was type-checked by read_header (validate_header).
    print(f"{_safe(path)}  ({human_bytes(size)})")
    print(f"  format      {header['format']} v{header['version']}")
    print(f"  iteration   {header['iteration']}")
    print(f"  timestamp   {_when(header['timestamp'])}")
    for k, v in header["custom"].items():
        print(f"  custom      {_safe(k)} = {_safe(v)}")
    if header["base"] is not None:
        print(f"  base        {_safe(header['base']['file'])} ({_safe(header['base']['checksum'])})")
    for section in _sections.SECTIONS:
        value = header.get(section.key)
        line = section.describe(value) if value is not None else None
        if line is not None:
            print(f"  {section.key:<11} {_safe(line)}")
    print("\n  Tensors: name, element type, shape, bytes of data, and how it is stored "
          "(blank: raw bytes in this file; zlib: compressed; in base: unchanged, read from the base snapshot).")
    names = [_safe(e.name) for e in entries]
    name_w = min(max([len(n) for n in names] + [4]), 60)
    print(f"\n  {'name':<{name_w}}  {'dtype':<8} {'shape':<18} {'bytes':>12}  stored")
    for n, e in zip(names, entries):
        stored = "in base" if e.ref == "base" else (e.codec if e.codec != "raw" else "")
        print(f"  {n:<{name_w}}  {np.dtype(e.dtype).name:<8} {str(list(e.shape)):<18} {e.nbytes:>12,}  {stored}")
    print(f"\n  {len(entries)} tensors, {sum(e.nbytes for e in entries):,} bytes of data")
    return 0


def verify(args: argparse.Namespace) -> int:
    try:
        snap = Snapshot.load(args.path, SnapshotConfig(verify_checksum=True))
    except (SnapshotError, OSError) as exc:
        return _fail(f"{args.path} is not an intact snapshot: {exc}")
    print(f"OK {_safe(args.path)}: {snap.metadata.tensor_count} tensors, iteration {snap.metadata.iteration}, "
          f"{snap.metadata.checksum}")
    return 0


def diff(args: argparse.Namespace) -> int:
    loaded = []
    for path in (args.a, args.b):
        try:
            loaded.append(Snapshot.load(path).tensors)
        except (SnapshotError, OSError) as exc:  # said with the file's name: "truncated" alone does not say which
            _fail(f"{path} is not a readable snapshot: {exc}")
            return 2
    a, b = loaded
    changed = 0
    for name in sorted(set(a) | set(b)):
        shown = _safe(name)
        if name not in a or name not in b:
            print(f"{'+' if name in b else '-'} {shown}  only in {'B' if name in b else 'A'}")
            changed += 1
            continue
        x, y = a[name], b[name]
        if x.shape != y.shape or x.dtype != y.dtype:
            print(f"~ {shown}  {x.dtype}{list(x.shape)} -> {y.dtype}{list(y.shape)}")
            changed += 1
        elif not np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"):
            with np.errstate(invalid="ignore", over="ignore"):
                d = np.abs(x.astype(np.float64) - y.astype(np.float64))
            print(f"~ {shown}  max abs difference {np.nanmax(d) if d.size else 0:.6g}")
            changed += 1
    print(f"{changed} of {len(set(a) | set(b))} tensors differ")
    return 1 if changed else 0


def _when(timestamp: object) -> str:
    """Seconds since the epoch as a local date and time (the raw number when it is not one)."""
    try:
        return datetime.datetime.fromtimestamp(float(timestamp)).astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")
    except (TypeError, ValueError, OverflowError, OSError):
        return repr(timestamp)
