"""What the docs say is *not offered* is absent, and what they say replaced an absence is there:
a name the docs list as missing that the package has since gained (or lost) fails here, so the
page is corrected with the code (docs/from-pytorch.md listed ``nn.DataParallel`` as not offered
after it was added)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import minigrad_ckpt as mg

DOCS = Path(__file__).resolve().parent.parent / "docs"

#: (page, the words on it, where the name would live, the name)
NOT_OFFERED = [
    ("from-pytorch.md", "`SparseAdam`", "minigrad_ckpt.optim", "SparseAdam"),
    ("from-pytorch.md", "`Wishart`", "minigrad_ckpt.distributions", "Wishart"),
    ("from-pytorch.md", "`positive_semidefinite` constraint", "minigrad_ckpt.distributions.constraints",
     "positive_semidefinite"),
    ("from-pytorch.md", "`CrossMapLRN2d`", "minigrad_ckpt.nn", "CrossMapLRN2d"),
    ("from-pytorch.md", "the deprecated `NLLLoss2d`", "minigrad_ckpt.nn", "NLLLoss2d"),
    ("from-pytorch.md", "(`as_strided` is not offered.)", "minigrad_ckpt.Tensor", "as_strided"),
    ("from-pytorch.md", "nor `mg.as_strided`", "minigrad_ckpt", "as_strided"),
    ("distributed.md", "`bf16_compress_hook` is not offered",
     "minigrad_ckpt.distributed.algorithms.ddp_comm_hooks.default_hooks", "bf16_compress_hook"),
]
MODULES_NOT_OFFERED = [("from-pytorch.md", "`torch.distributions.utils` and `wishart` are not offered",
                        ["minigrad_ckpt.distributions.utils", "minigrad_ckpt.distributions.wishart"])]
#: names the docs once listed as missing, offered since
OFFERED = [("from-pytorch.md", "`nn.DataParallel`", "minigrad_ckpt.nn", "DataParallel"),
           ("from-pytorch.md", "The lazy layers (`nn.LazyLinear`", "minigrad_ckpt.nn", "LazyLinear"),
           ("from-pytorch.md", "`LazyBatchNorm1d/2d/3d`", "minigrad_ckpt.nn", "LazyBatchNorm3d"),
           ("from-pytorch.md", "`nn.UninitializedParameter`s", "minigrad_ckpt.nn.parameter", "is_lazy"),
           ("from-pytorch.md", "`nn.SyncBatchNorm` and `SyncBatchNorm.convert_sync_batchnorm", "minigrad_ckpt.nn",
            "SyncBatchNorm"),
           ("from-pytorch.md", "and `Muon` (2-D", "minigrad_ckpt.optim", "Muon")]


def _page(name: str) -> str:
    return " ".join((DOCS / name).read_text(encoding="utf-8").split())  # line breaks as spaces


def _home(path: str):
    return mg.Tensor if path == "minigrad_ckpt.Tensor" else importlib.import_module(path)


@pytest.mark.parametrize("page, words, home, name", NOT_OFFERED, ids=[row[3] for row in NOT_OFFERED])
def test_a_name_the_docs_call_not_offered_is_absent(page, words, home, name):
    assert words in _page(page), f"docs/{page} no longer says {words!r}: update this table"
    assert not hasattr(_home(home), name), f"{home}.{name} exists: docs/{page} still calls it not offered"


@pytest.mark.parametrize("page, words, modules", MODULES_NOT_OFFERED)
def test_a_module_the_docs_call_not_offered_is_absent(page, words, modules):
    assert words in _page(page)
    for module in modules:
        with pytest.raises(ImportError):
            importlib.import_module(module)


def test_the_lazy_layers_the_docs_offer_are_pytorchs_thirteen():
    assert "Not offered: the `Lazy*` layers" not in _page("from-pytorch.md")
    assert len([n for n in dir(mg.nn) if n.startswith("Lazy")]) == 13


@pytest.mark.parametrize("page, words, home, name", OFFERED, ids=[row[3] for row in OFFERED])
def test_a_name_the_docs_offer_is_there(page, words, home, name):
    assert words in _page(page)
    assert hasattr(_home(home), name)
