"""Regenerate ``tests/data/torch_rearrange.json``: torch 2.13's ``torch.func.rearrange`` on patterns and refusals.

    python tests/data/make_torch_rearrange.py        # needs torch; the tests do not

Each case rearranges ``arange`` of a shape (as int64: the values say where each element went) and stores
the result's shape, dtype and values; each refusal stores its exception's class name and message.  A
pattern torch 2.13 fails on by a bug of its own (``KNOWN_TORCH_BUGS``) is stored with einops' answer,
checked here to be einops' (the test says why).  ``tests/test_func_rearrange.py`` replays them.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from torch.func import rearrange

CASES = [  # (shape, pattern, axes_lengths)
    ((2, 3, 4), "a b c -> a b c", {}), ((2, 3, 4), "a b c -> c b a", {}), ((2, 3, 4), "a b c -> (a b) c", {}),
    ((2, 3, 4), "a b c -> (c a) b", {}), ((2, 3, 4), "a b c -> (a b c)", {}), ((2, 3, 4), "a b c -> (c b a)", {}),
    ((2, 6, 4), "a (b1 b2) c -> a b1 b2 c", {"b1": 2}), ((2, 6, 4), "a (b1 b2) c -> (a b2) (c b1)", {"b2": 2}),
    ((4, 6, 8, 3), "b (h h1) (w w1) c -> b h w (c h1 w1)", {"h1": 2, "w1": 2}),
    ((4, 6, 8, 3), "b (h1 h) (w1 w) c -> (b h1 w1) h w c", {"h1": 2, "w1": 4}),
    ((4, 5, 6, 3), "b h w c -> b c h w", {}), ((4, 5, 6, 3), "b h w c -> h (b w) c", {}),
    ((4, 5, 6, 3), "b h w c -> b (c h w)", {}), ((2, 3, 4), "a b c -> a 1 b c", {}),
    ((2, 3, 4), "a b c -> a b () c 1", {}), ((1, 3, 4), "1 b c -> b c", {}), ((2, 1, 4), "a () c -> c a", {}),
    ((2, 3, 4, 5), "... c -> c ...", {}),
    ((2, 3, 4, 5), "a ... -> ... a", {}),
    ((2, 3, 4, 5), "a b ... -> (a b) ...", {}),
    ((2, 3, 4, 5), "... -> (...)", {}),
    ((2, 3, 4, 5), "a ... d -> d (...) a", {}),
    ((2, 3, 4, 5), "a ... d -> (d ...) a", {}),
    ((3,), "... a -> a ...", {}),
    ((2, 3, 4, 5), "a b c d ... -> d c b a ...", {}),
    ((2, 3, 4, 5), "... a b -> ... b a", {}),
    ((2, 12), "a (b c d) -> a d c b", {"b": 2, "c": 3}), ((2, 12), "a (b c d) -> a d c b", {"b": 2, "c": 3, "d": 2}),
    ((2, 3, 4), "a b c -> (a 1) (1 b) c", {}), ((2, 3, 4), "a b c -> a b c", {"a": 2, "b": 3, "c": 4}),
    ((5,), "x -> x 1", {}),
    ((5,), "x -> 1 x 1", {}),
    ((2, 3, 4), "a b c -> (b a) c", {}),
    ((3, 4, 5), "h w c -> w h c", {}),
    ((2, 3, 1, 4), "a b 1 c -> (c a) b", {}), ((2, 3, 4, 5, 6), "a b c d e -> e (d c) (b a)", {}),
    ((2, 3, 4, 5, 6), "a ... e -> e ... a", {}), ((2, 3, 4, 5, 6), "... -> ...", {}), ((0, 3), "a b -> b a", {}),
    ((2, 0, 4), "a (b1 b2) c -> a b1 b2 c", {"b1": 2}), ((1,), "1 -> ", {}), ((3, 1, 1), "a 1 1 -> a", {}),
    ((4, 6), "(a1 a2) (b1 b2) -> (a1 b1) (a2 b2)", {"a1": 2, "b1": 3}), ((2, 3, 4), "b ... -> b (...)", {}),
    ((2, 3, 4), "my_axis b c2 -> c2 my_axis b", {}), ((6, 1), "(a b) 1 -> b a", {"b": 3}),
    ((6, 2), "(a b) c -> b 1 a c", {"b": 3}), ((2, 3), "a c -> c 1 a", {}), ((2, 3, 4), "  a  b  c->c b a", {}),
    ((2, 3, 4), "a b c-> (c b a)", {}), ((), " -> ", {}), ((), "-> 1", {}), ((), "-> (1 1)", {}),
]
KNOWN_TORCH_BUGS = [  # (shape, pattern, axes_lengths, einops' shape): the values are checked in the test by hand
    ((6,), "(a b) -> b a", {"a": 3}, [2, 3]), ((8,), "(x y z) -> z y x", {"x": 2, "y": 2}, [2, 2, 2]),
    ((2, 1), "a 1 -> 1 a", {}, [1, 2]), ((2, 1, 3), "a 1 c -> c 1 a", {}, [3, 1, 2]),
]
REFUSALS = [  # (shape, pattern, axes_lengths)
    ((2, 3, 4), "a (b1 b2) c -> a b1 b2 c", {}), ((2, 3, 4), "a (b1 b2) c -> a b1 b2 c", {"b1": 2}),
    ((2, 3, 4), "a (b1 b2) c -> a b1 b2 c", {"b1": 3, "b2": 2}), ((2, 3, 4), "a b -> b a", {}),
    ((2, 3, 4), "a b c -> a b", {}), ((2, 3, 4), "a b c -> a b c e", {}), ((2, 3, 4), "a b c -> a b c", {"e": 2}),
    ((2, 3, 4), "a b c -> a b 2 c", {}), ((2, 3, 4), "a a c -> a c", {}), ((2, 3, 4), "a b c -> a b c", {"a": 3}),
    ((2, 3, 4), "a b c > a b c", {}), ((2, 3, 4), "a b c -> (a (b c))", {}), ((2, 3, 4), "a b c -> (a b c", {}),
    ((2, 3, 4), "a b c -> a b c)", {}), ((2, 3, 4), "a b. c -> a b c", {}), ((2, 3, 4), "a b c -> a b c -> a", {}),
    ((2, 3, 4), "a b c -> a* b c", {}), ((2, 3, 4), "_a b c -> _a b c", {}), ((2, 3, 4), "a b c -> a b ...", {}),
    ((2, 3, 4), "(a ...) -> a", {}), ((2, 3, 4), "a b c -> ... a", {}), ((2, 3, 4), "a b c -> a b c", {"...": 2}),
    ((2, 3, 4), "a b c -> (a b) c", {"b": 4}), ((2, 3, 4), "a b 1c -> a b", {}), ((2, 3, 4), "a b c d... -> a", {}),
    ((2, 3, 4), "a b c -> a b c", {"a_": 2}),
    ((2, 3, 4), "a b c -> (a 2) b c", {}),
    ((2, 3, 4, 5), "a (b c d) e f -> a", {}),
    ((2, 3, 4, 5), "(a b c) d e f -> a b c d e f", {"b": 2}),
    ((2, 3, 4, 5), "(a b c) d e f -> a b c d e f", {"b": 2, "c": 3}),
    ((2, 3, 4, 5), "(a b c) d e f -> a b c d e f", {"a": 1, "b": 2, "c": 3}), ((2, 3, 4), "a b ... c d -> a", {}),
    ((2, 3, 4), "a b c -> a b c", {"a": 2.0}), ((2, 3, 4), "a b c -> a b c", {"a": True}),
    ((2, 3, 4), "a 0 c -> a c", {}), ((2, 3, 4), "a b c.. -> a b c", {}), ((2, 3, 4), "a b c ... ... -> a b c", {}),
]


def main() -> None:
    out = {"torch": torch.__version__, "cases": [], "refusals": [], "known_torch_bugs": KNOWN_TORCH_BUGS}
    for shape, pattern, lengths in CASES:
        x = torch.arange(int(torch.tensor(shape).prod().item()) if shape else 1).reshape(shape).to(torch.int32)
        y = rearrange(x, pattern, **lengths)
        out["cases"].append({"shape": list(shape), "pattern": pattern, "lengths": lengths, "out_shape": list(y.shape),
                             "dtype": str(y.dtype).removeprefix("torch."), "values": y.flatten().tolist()})
    for shape, pattern, lengths in REFUSALS:
        try:
            rearrange(torch.zeros(shape), pattern, **lengths)
        except Exception as e:  # noqa: BLE001  (each class is recorded by name)
            out["refusals"].append({"shape": list(shape), "pattern": pattern, "lengths": lengths,
                                    "error": type(e).__name__, "message": str(e)})
        else:
            raise AssertionError(f"torch answered {pattern!r}")
    for shape, pattern, lengths, _ in KNOWN_TORCH_BUGS:
        try:
            rearrange(torch.zeros(shape), pattern, **lengths)
        except (ValueError, AssertionError):
            continue
        raise AssertionError(f"torch {torch.__version__} answers {pattern!r} now: move it to CASES")
    (Path(__file__).with_name("torch_rearrange.json")).write_text(json.dumps(out, indent=0) + "\n")


if __name__ == "__main__":
    main()
