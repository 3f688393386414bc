"""``mg.save(obj, path)`` / ``mg.load(path)``: state dicts and nested containers of tensors in
the snapshot format -- never pickle.

A saved object is a snapshot file: its tensors are the snapshot's tensors (named by their
path in the object, e.g. ``state.0.exp_avg``), and the shape of the object -- which
dicts, lists and tuples hold them, and the plain values beside them -- is plain data in the
header (``objects["mg.save"]``). So the file is checksummed, written atomically, read with
the snapshot reader's limits, and shown by ``minigrad-ckpt snapshot inspect``. Loading
runs no code from the file: anything it does not recognise is a ``SnapshotError``.
"""

from __future__ import annotations

import os
import pickle  # (its protocol numbers only: nothing is pickled)
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

from ..backend import get_default_device, get_device
from ..tensor import Tensor
from .config import SnapshotConfig, SnapshotMetadata
from .format import SnapshotError
from .object_tree import decode, encode_tree
from .snapshot import Snapshot

__all__ = ["save", "load"]

_KEY = "mg.save"


def _is_file_object(f: Any) -> bool:
    """A binary file object (``open(p, "wb")``, ``io.BytesIO()``), which PyTorch's save/load take
    as well as a path."""
    return not isinstance(f, (str, bytes, os.PathLike)) and (hasattr(f, "write") or hasattr(f, "read"))


def save(obj: Any, f: str | os.PathLike | Any, pickle_module: Any = None, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> Path | None:
    """Write ``obj`` -- a Tensor (an ``nn.Parameter`` loads as one), an array, or dicts (an
    ``OrderedDict`` loads as one) / lists / tuples / sets of them, numbers (of any size, complex),
    strings, bytes, dtypes, shapes (``x.shape``, an ``mg.Size``) and None (a ``state_dict()``, an
    optimizer's ``state_dict()``, a checkpoint dict, NumPy's generator state) -- to the path ``f``, or, as
    PyTorch's ``save``, to a binary file object (``io.BytesIO()``, ``open(p, "wb")``).

    Returns the path written (None for a file object); a path whose directory does not exist is
    PyTorch's ``RuntimeError``. Tensors keep their dtype and shape bit
    for bit; they are stored from the host (a GPU tensor is copied once). Other objects are
    refused with a ``TypeError``: nothing is pickled -- subclasses of those containers too (a
    ``defaultdict``, a namedtuple: their class is code, which PyTorch's ``weights_only`` load refuses).
    PyTorch's pickling arguments are taken and change nothing, since nothing is pickled:
    ``pickle_module``, ``pickle_protocol`` (checked as pickle checks it), ``_use_new_zipfile_serialization``
    (``False`` asks PyTorch for its legacy format, which older readers take: every reader of this
    format reads the one format there is) and ``_disable_byteorder_record``.
    """
    del pickle_module, _use_new_zipfile_serialization, _disable_byteorder_record
    _check_protocol(pickle_protocol)
    if _is_file_object(f):  # the snapshot writer works on paths: write one, hand on its bytes
        with tempfile.TemporaryDirectory() as tmp:
            f.write(save(obj, Path(tmp) / "object.mgsnap").read_bytes())
        return None
    parent = Path(f).parent
    if not parent.is_dir():  # PyTorch's refusal: a mistyped directory is not made (a snapshot's writer would)
        raise RuntimeError(f"Parent directory {parent} does not exist.")
    tensors: dict[str, Any] = {}
    tree = encode_tree(obj, tensors)
    meta = SnapshotMetadata(iteration=0, timestamp=time.time())
    meta.tensor_count = len(tensors)
    meta.total_bytes = int(sum(a.nbytes for a in tensors.values()))
    state = {"objects": {_KEY: {"type": "tree", "state": tree}}}  # no other section
    return Snapshot(meta, tensors, state, SnapshotConfig()).save(f)


def load(f: str | os.PathLike | Any, map_location: Any = None, pickle_module: Any = None, *,
         weights_only: bool | None = None, mmap: bool | None = None, **pickle_load_args: Any) -> Any:
    """Read an object written by :func:`save`, from a path or a binary file object. Tensors come
    back on the CPU, or where ``map_location`` puts them, in PyTorch's forms: a device (or its
    name or CUDA ordinal: ``"cuda:0"``, ``0``) for every tensor; a dict from the device a tensor
    was saved on to the one to load it on (``{"cuda:0": f"cuda:{rank}"}``; a device it does not
    name stays the saved one); or ``fn(tensor, saved_device_name)`` returning the tensor to use
    (given it on the CPU), or None to leave it where no ``map_location`` puts it, as PyTorch's.
    Arrays come back as NumPy arrays.  PyTorch's ``weights_only=`` and ``mmap=`` are taken and
    change nothing: no code is ever loaded (what ``weights_only=True`` asks for), and the file is
    read whole; so do ``pickle_module`` and the keywords PyTorch hands its unpickler (``encoding=``,
    ``errors=``, ``fix_imports=``: a checkpoint of Python 2's days asked for ``encoding="latin1"``).
    A file ``save`` did not write is a ``SnapshotError`` that names what it is when its first bytes
    say so: a file PyTorch's ``torch.save`` wrote (never unpickled here) comes with the way across,
    its state dict saved as NumPy arrays (``np.savez``) and loaded by ``load_state_dict(np.load(...))``."""
    del weights_only, mmap, pickle_module
    unknown = sorted(set(pickle_load_args) - _UNPICKLER_KEYWORDS)
    if unknown:
        raise TypeError(f"load() got an unexpected keyword argument {unknown[0]!r}")
    if _is_file_object(f):
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "object.mgsnap"
            copy.write_bytes(f.read())
            return _load_path(copy, map_location, "the file object")
    return _load_path(f, map_location, f)


def _load_path(path: str | os.PathLike, map_location: Any, name: Any) -> Any:
    """:func:`load` of a path; ``name`` is what its messages call the file."""
    try:
        snap = Snapshot.load(path)
    except SnapshotError as exc:
        foreign = None if isinstance(exc, OSError) else _foreign_format(path)
        if foreign is None:
            raise
        raise SnapshotError(f"{name}: {foreign}") from None
    objects = snap.state.get("objects")
    entry = objects.get(_KEY) if isinstance(objects, dict) else None
    if not isinstance(entry, dict) or entry.get("type") != "tree" or "state" not in entry:
        raise SnapshotError(f"{name}: not a file written by mg.save (a training snapshot? load it with "
                            f"Snapshot.load)")
    return decode(entry["state"], snap.tensors, _placement(map_location), 0, {})


_NOT_READ = "; mg.load reads what mg.save writes, and never unpickles"
_CONVERT = ("; convert a PyTorch state dict where PyTorch is installed -- np.savez('sd.npz', **{k: v.numpy() "
            "for k, v in torch.load(path).items()}) -- and load the arrays: model.load_state_dict(np.load('sd.npz'))")


def _foreign_format(path: str | os.PathLike) -> str | None:
    """What a file that is not a snapshot is, when its first bytes say so, and what to do: a resume
    written for PyTorch (``torch.load('ckpt.pth')``) reaches ``mg.load`` with PyTorch's own file, and
    "not a snapshot" alone does not say why it cannot be read. Only the magic bytes and a zip's list
    of names are read (never its pickle)."""
    with open(path, "rb") as f:
        magic = f.read(8)
    if magic.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(path) as archive:
                names = archive.namelist()
        except (zipfile.BadZipFile, OSError):
            return "a damaged zip archive" + _NOT_READ
        if any(n == "data.pkl" or n.endswith("/data.pkl") for n in names):
            return "a PyTorch file (torch.save's zip format: a pickle and its tensors' storages)" + _NOT_READ + _CONVERT
        if names and all(n.endswith(".npy") for n in names):
            return "a NumPy .npz archive: read it with np.load"
        return "a zip archive" + _NOT_READ
    if magic.startswith(b"\x93NUMPY"):
        return "a NumPy .npy file: read it with np.load"
    if magic[:1] == b"\x80" and magic[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return "a pickle (PyTorch's legacy torch.save format, or pickle.dump's)" + _NOT_READ + _CONVERT
    return None


#: the keywords ``pickle.Unpickler`` takes beside the file, which ``torch.load`` hands on to it
_UNPICKLER_KEYWORDS = frozenset({"encoding", "errors", "fix_imports", "buffers"})


def _check_protocol(protocol: Any) -> None:
    """``pickle_protocol`` refused where pickle refuses it (``torch.save`` hands it to pickle)."""
    if not isinstance(protocol, int):
        raise TypeError(f"'{type(protocol).__name__}' object cannot be interpreted as an integer")
    if protocol > pickle.HIGHEST_PROTOCOL:
        raise ValueError(f"pickle protocol must be <= {pickle.HIGHEST_PROTOCOL}")


def _placement(map_location: Any) -> Any:
    """``place(tensor on the CPU, saved device name) -> tensor``, from ``map_location``'s forms."""
    if map_location is None:  # the default device (the CPU unless mg.set_default_device changed it)
        return None
    if callable(map_location) and not isinstance(map_location, type):
        def call(t: Tensor, saved: str) -> Tensor:
            placed = map_location(t, saved)
            if placed is None:  # PyTorch's "no opinion": where no map_location would put it
                return t.to(get_default_device())
            if not isinstance(placed, Tensor):
                raise TypeError(f"mg.load: map_location returned a {type(placed).__name__}, not a Tensor")
            return placed
        return call
    if isinstance(map_location, dict):
        return lambda t, saved: t.to(map_location.get(saved, saved))
    device = get_device(map_location)
    return lambda t, saved: t.to(device)
