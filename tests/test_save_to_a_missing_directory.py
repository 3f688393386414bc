"""``mg.save`` to a path in a directory that does not exist is refused, as PyTorch's.

The snapshot writer under ``mg.save`` makes the directories a snapshot's path needs; ``mg.save``
itself, PyTorch's ``torch.save``, must not: a mistyped directory would silently become a tree.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg


def test_a_path_in_a_directory_that_does_not_exist_is_refused_and_not_made(tmp_path):
    # PyTorch 2.13: RuntimeError "Parent directory ... does not exist." -- a mistyped path is not
    # silently made into a directory tree
    missing = tmp_path / "no_such_dir"
    with pytest.raises(RuntimeError, match="Parent directory .*no_such_dir does not exist"):
        mg.save({"a": mg.ones(2)}, missing / "x.pt")
    assert not missing.exists()
    mg.save({"a": mg.ones(2)}, tmp_path / "x.pt")  # an existing directory: written
    assert mg.load(tmp_path / "x.pt")["a"].tolist() == [1.0, 1.0]
