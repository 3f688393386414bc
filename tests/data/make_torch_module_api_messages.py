"""Record PyTorch's answers (value, or exception type and message) for the calls in
module_api_message_cases.py.

Run: python tests/data/make_torch_module_api_messages.py  (needs torch; writes torch_module_api_messages.json).
"""

import json
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from module_api_message_cases import CASES, answer  # noqa: E402


def main() -> None:
    out = {"torch_version": torch.__version__, "answers": {name: answer(torch, name) for name in CASES}}
    pathlib.Path(__file__).with_name("torch_module_api_messages.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
