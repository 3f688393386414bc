"""Record torch.testing.assert_close's answer (None, or the exception's type and message) to each case of
assert_close_cases.py: ``python tests/data/make_torch_assert_close.py`` (offline; needs torch) writes
torch_assert_close.json, which tests/test_assert_close.py compares minigrad_ckpt.testing.assert_close with."""

import json
import sys
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from assert_close_cases import CASES  # noqa: E402

env = dict(T=torch.tensor, Z=torch.zeros, E=torch.eye, F64=torch.float64, F16=torch.float16, I8=torch.int8, np=np)
answers = {}
for name, actual, expected, keywords in CASES:
    try:
        torch.testing.assert_close(eval(actual, env), eval(expected, env), **keywords)
        answers[name] = None
    except Exception as exc:  # the answer to record
        # torch's own spellings of a shape and a dtype, as the engine writes them (a tuple, a NumPy dtype)
        message = str(exc).replace("torch.Size([", "(").replace("])", ",)").replace("torch.float", "float")
        answers[name] = [type(exc).__name__, message.replace("<class 'torch.Tensor'>", "<class 'Tensor'>")]
(HERE / "torch_assert_close.json").write_text(json.dumps({"torch": torch.__version__, "answers": answers}, indent=1))
