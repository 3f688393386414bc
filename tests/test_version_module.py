"""``mg.version`` is PyTorch's ``torch.version``: LLMs-from-scratch's ch05 training-speed scripts
(``01_opt_single_gpu.py``) print ``torch.version.cuda`` at start-up, which was an AttributeError after
the rename.  On a machine without CuPy or a GPU the answers are a CPU build's (torch 2.13.0+cpu:
``torch.version.cuda is None``, ``torch.version.hip is None``)."""

from __future__ import annotations

import minigrad_ckpt as mg
from minigrad_ckpt import backend


def _forget_cuda(monkeypatch, version) -> None:
    """Read ``cuda`` afresh in this test, and leave the module as it was after it (the set-then-delete
    makes monkeypatch restore the value or its absence)."""
    monkeypatch.setitem(vars(version), "cuda", None)
    monkeypatch.delitem(vars(version), "cuda")


def test_version_is_the_package_version_and_there_is_no_rocm_path():
    assert mg.version.__version__ == mg.__version__
    assert mg.version.hip is None
    assert "version" in mg.__all__


def test_cuda_is_none_without_a_gpu_and_cupys_runtime_with_one(monkeypatch):
    version = mg.version
    _forget_cuda(monkeypatch, version)
    if backend._cupy() is None:
        assert version.cuda is None  # torch 2.13.0+cpu: torch.version.cuda is None
    else:
        major, minor = version.cuda.split(".")
        assert int(major) >= 10 and minor.isdigit()


def test_cuda_is_read_as_major_dot_minor_from_the_runtimes_number(monkeypatch):
    class Runtime:
        @staticmethod
        def runtimeGetVersion() -> int:
            return 12040

    class FakeCupy:
        class cuda:
            runtime = Runtime

    version = mg.version
    _forget_cuda(monkeypatch, version)
    monkeypatch.setattr(backend, "_cupy", lambda: FakeCupy)
    assert version.cuda == "12.4"
    assert version.cuda == "12.4"  # kept after the first read


def test_the_other_platform_fields_are_a_cpu_release_builds():
    # torch 2.13.0+cpu: torch.version.rocm, .xpu are None and .debug is False (rocm was asserted absent here)
    assert mg.version.rocm is None and mg.version.xpu is None and mg.version.debug is False
    assert {"debug", "rocm", "xpu"} <= set(mg.version.__all__)


def test_an_unknown_name_is_an_attribute_error():
    try:
        mg.version.not_a_field
    except AttributeError as error:
        assert "not_a_field" in str(error)
    else:
        raise AssertionError("mg.version.not_a_field should not exist")


def test_a_fake_runtime_read_in_a_test_does_not_stay():
    assert "cuda" not in vars(mg.version) or mg.version.cuda != "12.4" or backend._cupy() is not None
