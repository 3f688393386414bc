"""Regenerate ``tests/data/torch_gradcheck_kinks.json``: PyTorch's ``gradcheck`` and
``gradgradcheck`` verdicts (``raise_exception=False``, default tolerances, float64) on the
functions at kinks of ``gradcheck_kink_cases.py``.

    python tests/data/make_torch_gradcheck_kinks.py     # needs torch; the tests do not

PyTorch compares every element by central differences, one at a kink too: ``abs`` at 0 passes
(both sides give 0), ``relu`` at 0 fails (1/2 against 0).
"""

from __future__ import annotations

import functools
import json
import sys
import warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from gradcheck_kink_cases import CASES  # noqa: E402

OUT = Path(__file__).with_name("torch_gradcheck_kinks.json")


def main() -> None:
    verdicts = {"torch": torch.__version__, "cases": {}}
    for name, (case, values) in CASES.items():
        x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        fn = functools.partial(case, torch)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            verdicts["cases"][name] = {
                "gradcheck": torch.autograd.gradcheck(fn, (x,), raise_exception=False),
                "gradgradcheck": torch.autograd.gradgradcheck(fn, (x,),
                                                              raise_exception=False),
            }
    OUT.write_text(json.dumps(verdicts, indent=1) + "\n")


if __name__ == "__main__":
    main()
