"""Record what ``torch.load(torch.save(obj), weights_only=False)`` gives back for the objects of
``save_load_kinds_cases.py`` (``weights_only=True``, PyTorch's default, gives the same or refuses a
kind it does not allowlist: the names it refuses are listed too): ``python tests/data/make_torch_save_load_kinds.py``
writes ``tests/data/torch_save_load_kinds.json`` (needs torch; the tests do not)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from save_load_kinds_cases import cases, describe, views, write_through  # noqa: E402


def main() -> None:
    torch.manual_seed(0)
    out = {"torch": torch.__version__, "loaded": {}, "weights_only_refuses": []}
    for name, obj in cases(torch).items():
        buf = io.BytesIO()
        torch.save(obj, buf)
        buf.seek(0)
        out["loaded"][name] = describe(torch.load(buf, weights_only=False))
        buf.seek(0)
        try:
            assert describe(torch.load(buf)) == out["loaded"][name]
        except Exception:  # (its UnpicklingError: a kind it does not allowlist)
            out["weights_only_refuses"].append(name)
    buf = io.BytesIO()
    torch.save(views(torch), buf)
    buf.seek(0)
    out["views_after_write"] = write_through(torch.load(buf), torch)
    (HERE / "torch_save_load_kinds.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
