"""``mg.hub``: PyTorch's ``torch.hub`` names, with ``file://`` URLs and temporary directories only (no network).

timm's ``models/_hub.py`` and ``_builder.py`` import ``load_state_dict_from_url``, ``download_url_to_file``,
``HASH_REGEX``, ``urlparse`` and ``get_dir`` from ``torch.hub`` at their top, so the library did not import.
"""

from __future__ import annotations

import hashlib
import os
import sys

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import hub
from minigrad_ckpt.snapshot.format import SnapshotError


def _url(path) -> str:
    return "file://" + os.fspath(path)


def _sha256(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def test_the_names_timm_imports_are_there():
    from minigrad_ckpt.hub import HASH_REGEX, download_url_to_file, get_dir, load_state_dict_from_url, urlparse

    assert callable(download_url_to_file) and callable(load_state_dict_from_url) and callable(get_dir)
    assert HASH_REGEX.search("resnet18-bfd8deac.pth").group(1) == "bfd8deac"
    assert urlparse("https://x.org/a/b.pth").path == "/a/b.pth"
    assert mg.hub is hub


def test_the_cache_directory_is_the_engines_own_and_set_dir_overrides_it(monkeypatch, tmp_path):
    monkeypatch.setattr(hub, "_hub_dir", None)
    monkeypatch.setenv("MINIGRAD_CKPT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))  # PyTorch's cache is not the engine's
    assert hub.get_dir() == str(tmp_path / "home" / "hub")
    monkeypatch.delenv("MINIGRAD_CKPT_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert hub.get_dir() == str(tmp_path / "xdg" / "minigrad_ckpt" / "hub")
    hub.set_dir("~/somewhere")
    assert hub.get_dir() == os.path.expanduser("~/somewhere")


def test_download_url_to_file_copies_and_checks_the_hash_prefix(tmp_path):
    src = tmp_path / "src.bin"
    src.write_bytes(os.urandom(300_000))  # more than one read chunk
    dst = tmp_path / "out" / "dst.bin"
    dst.parent.mkdir()
    hub.download_url_to_file(_url(src), str(dst), hash_prefix=_sha256(src)[:10], progress=False)
    assert dst.read_bytes() == src.read_bytes()
    assert os.listdir(dst.parent) == ["dst.bin"]


def test_a_hash_mismatch_is_pytorchs_error_and_leaves_no_file(tmp_path):
    src = tmp_path / "src.bin"
    src.write_bytes(b"weights")
    dst = tmp_path / "out" / "dst.bin"
    dst.parent.mkdir()
    digest = _sha256(src)
    wrong = "0" * 8 if not digest.startswith("0" * 8) else "f" * 8
    with pytest.raises(RuntimeError, match=f'invalid hash value \\(expected "{wrong}", got "{digest}"\\)'):
        hub.download_url_to_file(_url(src), str(dst), hash_prefix=wrong, progress=False)
    assert os.listdir(dst.parent) == []


def test_an_interrupted_download_leaves_no_partial_file_and_keeps_the_old_one(monkeypatch, tmp_path):
    class Broken:
        """A response that delivers one chunk, then the connection drops."""

        def __init__(self, *args):
            self.calls = 0

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def info(self):
            return _Headers()

        def read(self, n):
            self.calls += 1
            if self.calls > 1:
                raise ConnectionResetError("connection dropped")
            return b"x" * 10

    class _Headers:
        def get_all(self, name):
            return ["100"]

    monkeypatch.setattr(hub, "urlopen", Broken)
    dst = tmp_path / "dst.bin"
    dst.write_bytes(b"the good old file")
    with pytest.raises(ConnectionResetError):
        hub.download_url_to_file("https://example.invalid/w.pth", str(dst), progress=False)
    assert os.listdir(tmp_path) == ["dst.bin"]
    assert dst.read_bytes() == b"the good old file"


def test_load_state_dict_from_url_downloads_once_then_reads_the_cache(tmp_path, capsys):
    sd = {"weight": mg.arange(6.0).reshape(2, 3), "bias": mg.zeros(2), "step": 3}
    src = tmp_path / "served" / "model.pth"
    src.parent.mkdir()
    mg.save(sd, src)
    named = src.with_name(f"model-{_sha256(src)[:8]}.pth")
    src.rename(named)
    cache = tmp_path / "cache"
    got = hub.load_state_dict_from_url(_url(named), model_dir=str(cache), check_hash=True, progress=False)
    assert f'Downloading: "{_url(named)}" to {cache / named.name}' in capsys.readouterr().out
    np.testing.assert_array_equal(got["weight"].numpy(), np.arange(6.0).reshape(2, 3))
    assert got["step"] == 3
    named.unlink()  # the cached file is read again, without the URL
    again = hub.load_state_dict_from_url(_url(named), model_dir=str(cache), progress=False)
    assert "Downloading" not in capsys.readouterr().out
    np.testing.assert_array_equal(again["weight"].numpy(), got["weight"].numpy())


def test_load_state_dict_from_url_defaults_to_the_hub_checkpoints_and_takes_file_name(monkeypatch, tmp_path):
    monkeypatch.setattr(hub, "_hub_dir", str(tmp_path / "hubdir"))
    src = tmp_path / "w.bin"
    mg.save({"a": mg.ones(2)}, src)
    got = hub.load_state_dict_from_url(_url(src), file_name="renamed.pth", progress=False)
    assert got["a"].tolist() == [1.0, 1.0]
    assert os.listdir(tmp_path / "hubdir" / "checkpoints") == ["renamed.pth"]


def test_check_hash_refuses_a_file_whose_name_names_another_hash(tmp_path):
    src = tmp_path / "model-00000000.pth"
    mg.save({"a": mg.ones(2)}, src)
    cache = tmp_path / "cache"
    with pytest.raises(RuntimeError, match="invalid hash value"):
        hub.load_state_dict_from_url(_url(src), model_dir=str(cache), check_hash=True, progress=False)
    assert os.listdir(cache) == []


def test_a_pytorch_pth_is_cached_then_refused_by_mg_load_with_the_way_across(tmp_path):
    src = tmp_path / "resnet-abc.pth"
    src.write_bytes(b"\x80\x02}q\x00.")  # the first bytes of a legacy torch.save (a pickle)
    cache = tmp_path / "cache"
    with pytest.raises(SnapshotError, match="a pickle.*never unpickles.*np.savez"):
        hub.load_state_dict_from_url(_url(src), model_dir=str(cache), progress=False)
    assert os.listdir(cache) == ["resnet-abc.pth"]


def _hubconf(tmp_path, text: str):
    (tmp_path / "hubconf.py").write_text(text)
    return str(tmp_path)


def test_load_with_source_local_calls_the_entry_point_with_the_directory_on_sys_path(tmp_path):
    (tmp_path / "mymodels_for_hub_test.py").write_text("def width():\n    return 7\n")
    repo = _hubconf(tmp_path, "dependencies = ['numpy']\nimport minigrad_ckpt as mg\n"
                              "from mymodels_for_hub_test import width\n"
                              "def tiny(n, bias=True):\n    '''A tiny linear model.'''\n"
                              "    return mg.nn.Linear(n, width(), bias=bias)\n")
    model = hub.load(repo, "tiny", 3, bias=False, source="local")
    assert isinstance(model, mg.nn.Linear) and model.weight.shape == (7, 3) and model.bias is None
    assert repo not in sys.path
    sys.modules.pop("mymodels_for_hub_test", None)


def test_load_local_refusals_are_pytorchs(tmp_path):
    repo = _hubconf(tmp_path, "dependencies = ['a_package_that_is_not_there_x']\ndef m():\n    return 1\n")
    with pytest.raises(RuntimeError, match="Missing dependencies: a_package_that_is_not_there_x"):
        hub.load(repo, "m", source="local")
    repo = _hubconf(tmp_path, "value = 3\n")
    with pytest.raises(RuntimeError, match="Cannot find callable value in hubconf"):
        hub.load(repo, "value", source="local")
    with pytest.raises(ValueError, match="model should be a string"):
        hub.load(repo, 3, source="local")
    with pytest.raises(ValueError, match='Unknown source: "web"'):
        hub.load(repo, "m", source="web")


def test_github_loads_are_refused_naming_the_local_way():
    for call in (lambda: hub.load("pytorch/vision", "resnet18"), lambda: hub.list("pytorch/vision"),
                 lambda: hub.help("pytorch/vision", "resnet18")):
        with pytest.raises(NotImplementedError, match="source='local'"):
            call()
