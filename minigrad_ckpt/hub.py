"""``mg.hub``: PyTorch's ``torch.hub`` -- weights fetched by URL into a cache, and models built from a
directory's ``hubconf.py``.

Model libraries import it at their top (timm's ``models/_hub.py`` and ``_builder.py`` take
``load_state_dict_from_url``, ``download_url_to_file``, ``HASH_REGEX``, ``urlparse`` and ``get_dir``), so
without it the library did not import at all. The names keep PyTorch's meanings: a download goes to a
temporary file beside its destination and is renamed into place only when it is whole (and its SHA-256
starts with the prefix asked for), so an interrupted or corrupt download never leaves a file a later call
would take as cached; ``load_state_dict_from_url`` downloads once into ``<get_dir()>/checkpoints`` and
then reads the cached file.

Two differences, both from what a file is here:

* The files are read with :func:`mg.load`, which reads what ``mg.save`` writes and never unpickles. A
  ``.pth`` that ``torch.save`` wrote (every checkpoint published for PyTorch) is downloaded and cached as
  PyTorch would, then refused by ``mg.load`` with a ``SnapshotError`` that names it a PyTorch file and
  gives the way across (convert it to NumPy arrays where PyTorch is installed).
* The cache is the engine's own: ``$MINIGRAD_CKPT_HOME/hub`` (``$XDG_CACHE_HOME/minigrad_ckpt`` by
  default), not ``$TORCH_HOME/hub``. The two libraries cache files of different formats under the same
  names (``resnet18-f37072fd.pth``): sharing one directory would hand each library the other's files.

``load``/``list``/``help`` of a GitHub repository download and run the repository's ``hubconf.py``,
written for PyTorch: they are refused, naming the way that works -- a clone of the repository, its
``hubconf.py`` ported, loaded with ``load(directory, name, source="local")``, which is PyTorch's own.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse
from urllib.request import Request, urlopen

from .snapshot.saveload import load as _mg_load

__all__ = ["HASH_REGEX", "download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url",
           "set_dir", "urlparse"]

#: the hash in a file name, as PyTorch's: ``bfd8deac`` of ``resnet18-bfd8deac.pth``
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
ENV_MINIGRAD_CKPT_HOME = "MINIGRAD_CKPT_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"
READ_DATA_CHUNK = 128 * 1024
_hub_dir: str | None = None


def _get_torch_home() -> str:
    """The engine's cache root (the counterpart of PyTorch's ``$TORCH_HOME``, which some libraries call):
    ``$MINIGRAD_CKPT_HOME``, else ``$XDG_CACHE_HOME/minigrad_ckpt``, else ``~/.cache/minigrad_ckpt``."""
    default = os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "minigrad_ckpt")
    return os.path.expanduser(os.getenv(ENV_MINIGRAD_CKPT_HOME, default))


def get_dir() -> str:
    """The hub's cache directory: what :func:`set_dir` set, else ``<_get_torch_home()>/hub``."""
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d: str | os.PathLike) -> None:
    """Make ``d`` (``~`` expanded) the hub's cache directory for this process."""
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


# ---------------------------------------------------------------------------
# Downloads
# ---------------------------------------------------------------------------
def _open_partial(dst: str) -> Any:
    """A new file beside ``dst`` to download into (a unique ``.partial`` name), as PyTorch's."""
    for _ in range(tempfile.TMP_MAX):
        try:
            return open(dst + "." + uuid.uuid4().hex + ".partial", "xb")  # noqa: SIM115  (closed by the caller)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "No usable temporary file name found")


def _show_progress(done: int, total: int | None) -> None:
    sys.stderr.write(f"\r{done:.1f} bytes" if total is None else f"\r{100 * done / float(total):.1f}%")
    sys.stderr.flush()


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None, progress: bool = True) -> None:
    """Download ``url`` to the path ``dst``, as PyTorch's.

    The bytes go to a temporary file beside ``dst``, renamed to ``dst`` only once the download is whole,
    so a download that fails or is interrupted leaves neither a partial file nor a damaged ``dst`` (a good
    file already there is kept). With ``hash_prefix``, the file's SHA-256 in hex must start with it, else
    PyTorch's ``RuntimeError('invalid hash value (expected "...", got "...")')`` and nothing is written.
    ``progress`` writes the percentage done to stderr. Any URL ``urllib`` opens works (``file://`` too).
    """
    dst = os.path.expanduser(dst)
    f = _open_partial(dst)
    try:
        with urlopen(Request(url, headers={"User-Agent": "torch.hub"})) as u:
            length = u.info().get_all("Content-Length")
            total = int(length[0]) if length else None
            sha256 = hashlib.sha256() if hash_prefix is not None else None
            done = 0
            while buffer := u.read(READ_DATA_CHUNK):
                f.write(buffer)
                if sha256 is not None:
                    sha256.update(buffer)
                done += len(buffer)
                if progress:
                    _show_progress(done, total)
            if progress:
                sys.stderr.write("\n")
        f.close()
        if sha256 is not None and hash_prefix is not None:
            digest = sha256.hexdigest()
            if digest[: len(hash_prefix)] != hash_prefix:
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(f.name, dst)
    finally:
        f.close()
        if os.path.exists(f.name):
            os.remove(f.name)


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location: Any = None,
                             progress: bool = True, check_hash: bool = False, file_name: str | None = None,
                             weights_only: bool = False) -> Any:
    """The object ``mg.save`` wrote at ``url``, downloaded once into ``model_dir`` and read with ``mg.load``.

    As PyTorch's: ``model_dir`` defaults to ``<get_dir()>/checkpoints``; the file is named by the URL's
    last path part (or ``file_name``); a file of that name already there is read without downloading; with
    ``check_hash`` the name must follow ``name-<sha256 prefix>.ext`` and the download is checked against
    that prefix (see :func:`download_url_to_file`). ``map_location`` is ``mg.load``'s. ``weights_only`` is
    taken and changes nothing: ``mg.load`` never runs code from a file, which is what it asks for.

    A ``.pth`` that PyTorch's ``torch.save`` wrote is downloaded and cached, then refused: ``mg.load``
    raises ``SnapshotError`` naming the cached file as a PyTorch file (a pickle, never unpickled here) and
    the way across -- convert its state dict to NumPy arrays where PyTorch is installed
    (``np.savez``) and load those with ``model.load_state_dict(np.load(...))``, or ``mg.save`` it.
    (PyTorch's deprecated reading of a zip holding one legacy file is not offered.)
    """
    del weights_only
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        found = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached_file, found.group(1) if found else None, progress=progress)
    return _mg_load(cached_file, map_location=map_location)


# ---------------------------------------------------------------------------
# Models from a hubconf.py
# ---------------------------------------------------------------------------
def _no_github(call: str) -> NotImplementedError:
    return NotImplementedError(
        f"mg.hub.{call} of a GitHub repository is not offered: it downloads the repository and runs its "
        f"hubconf.py, written for PyTorch. Clone the repository, port its hubconf.py to the engine, and "
        f"load from the directory: mg.hub.load(directory, name, source='local')")


@contextlib.contextmanager
def _on_sys_path(path: str) -> Iterator[None]:
    """``path`` first on ``sys.path`` for the block: ``hubconf.py`` imports its repository's modules."""
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def _import_hubconf(directory: str) -> Any:
    spec = importlib.util.spec_from_file_location(MODULE_HUBCONF, os.path.join(directory, MODULE_HUBCONF))
    if spec is None or spec.loader is None:
        raise AssertionError(f"failed to load spec from {os.path.join(directory, MODULE_HUBCONF)}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _entry(hubconf: Any, model: Any) -> Any:
    """The callable ``model`` of ``hubconf``, after its ``dependencies`` are checked, with PyTorch's errors."""
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    missing = [p for p in getattr(hubconf, VAR_DEPENDENCY, None) or () if importlib.util.find_spec(p) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    func = getattr(hubconf, model, None)
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def load(repo_or_dir: str, model: str, *args: Any, source: str = "github", trust_repo: Any = "check",
         force_reload: bool = False, verbose: bool = True, skip_validation: bool = False, **kwargs: Any) -> Any:
    """``model(*args, **kwargs)``, the entry point of that name in ``repo_or_dir/hubconf.py``, as PyTorch's
    ``torch.hub.load(..., source='local')``: the directory is first on ``sys.path`` while ``hubconf.py`` is
    imported and the entry point runs; a name in its ``dependencies`` list that cannot be imported is
    ``RuntimeError('Missing dependencies: ...')``. ``source='github'`` (the default, as PyTorch's) is
    refused with ``NotImplementedError`` naming the local way; any other source is PyTorch's ``ValueError``.
    ``trust_repo``, ``force_reload``, ``verbose`` and ``skip_validation`` concern downloads only, as in
    PyTorch, where a local load ignores them.
    """
    del trust_repo, force_reload, verbose, skip_validation
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        raise _no_github("load")
    with _on_sys_path(repo_or_dir):
        return _entry(_import_hubconf(repo_or_dir), model)(*args, **kwargs)


def list(github: str, force_reload: bool = False, skip_validation: bool = False,  # noqa: A001  (PyTorch's name)
         trust_repo: Any = "check", verbose: bool = True) -> Any:
    """Refused: PyTorch's ``torch.hub.list`` reads a GitHub repository only (see :func:`load`)."""
    raise _no_github("list")


def help(github: str, model: str, force_reload: bool = False, skip_validation: bool = False,  # noqa: A001
         trust_repo: Any = "check") -> Any:
    """Refused: PyTorch's ``torch.hub.help`` reads a GitHub repository only (see :func:`load`)."""
    raise _no_github("help")
