"""PyTorch's submodule addresses for names that live in one file here.

``torch.nn.parallel`` and ``torch.amp`` are packages in PyTorch, and programs import from their
submodules: OpenAI's guided-diffusion and improved-diffusion write ``from
torch.nn.parallel.distributed import DistributedDataParallel as DDP``.  Here each is one module
(``nn/parallel.py``, ``amp.py``), so after the rename that import was a
``ModuleNotFoundError`` ("'minigrad_ckpt.nn.parallel' is not a package").  ``install`` makes each
of PyTorch's submodules a small module object holding the same objects, an attribute of the
module and an entry of ``sys.modules``: Python's import finds a name there once its parent has
been imported, which importing the parent does first.
"""

from __future__ import annotations

import sys
import types
from typing import Any


def install(module_globals: dict[str, Any], table: dict[str, tuple[str, ...]]) -> None:
    """Make ``<module>.<submodule>`` importable for each row of ``table``: the submodule holds the
    module's objects of those names (``module_globals`` is the module's ``globals()``)."""
    parent = module_globals["__name__"]
    torch_name = "torch" + parent[parent.index("."):]
    for submodule, names in table.items():
        qualified = f"{parent}.{submodule}"
        held = {name: module_globals[name] for name in names}
        made = types.ModuleType(qualified, f"PyTorch's ``{torch_name}.{submodule}``: {', '.join(names)}.")
        made.__dict__.update(held)
        made.__all__ = list(names)
        module_globals[submodule] = made
        sys.modules[qualified] = made
