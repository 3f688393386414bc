"""PyTorch's submodule addresses of names that live in one file here (``submodule_paths.py``).

Found porting OpenAI's guided-diffusion: its train_util's ``from torch.nn.parallel.distributed
import DistributedDataParallel as DDP`` was, after the rename, a ModuleNotFoundError
("'minigrad_ckpt.nn.parallel' is not a package"); ``torch.amp.grad_scaler`` and
``torch.amp.autocast_mode`` were the same.  Each import runs in a fresh interpreter, as a
program's first import does (nothing imported before it)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import minigrad_ckpt as mg

ROOT = Path(__file__).resolve().parents[1]

CASES = [
    ("nn.parallel.distributed", "DistributedDataParallel", "nn.parallel"),
    ("nn.parallel.data_parallel", "DataParallel", "nn.parallel"),
    ("nn.parallel.scatter_gather", "scatter", "nn.parallel"),
    ("nn.parallel.scatter_gather", "gather", "nn.parallel"),
    ("nn.parallel.scatter_gather", "scatter_kwargs", "nn.parallel"),
    ("amp.grad_scaler", "GradScaler", "amp"),
    ("amp.autocast_mode", "autocast", "amp"),
    ("amp.autocast_mode", "custom_fwd", "amp"),
]


@pytest.mark.parametrize("submodule, name, home", CASES)
def test_the_submodule_holds_the_same_object(submodule, name, home):
    import importlib

    held = getattr(importlib.import_module(f"minigrad_ckpt.{submodule}"), name)
    assert held is getattr(importlib.import_module(f"minigrad_ckpt.{home}"), name)


def test_first_import_of_a_program_finds_it():
    code = ("from minigrad_ckpt.nn.parallel.distributed import DistributedDataParallel as DDP\n"
            "import minigrad_ckpt.amp.grad_scaler as gs\n"
            "import minigrad_ckpt as mg\n"
            "assert DDP is mg.nn.parallel.DistributedDataParallel and gs.GradScaler is mg.amp.GradScaler\n"
            "assert mg.nn.parallel.distributed.__all__ == ['DistributedDataParallel']\n")
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_a_name_pytorch_does_not_put_there_is_not_there():
    assert not hasattr(mg.nn.parallel.distributed, "DataParallel")
    with pytest.raises(ImportError):
        exec("from minigrad_ckpt.nn.parallel.distributed import GradScaler", {})
