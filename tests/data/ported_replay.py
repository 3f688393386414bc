"""What the test of a ported program needs to replay a fixture written by
``make_ported_reference.py`` (or its ``record_runs``): torch's random draws given back in order,
torch's weights loaded at ``init``, and the run's history and final weights compared (no torch
needed).  ``tests/test_ported_examples.py`` and the ``tests/test_ported_<program>.py`` files use it."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
from pathlib import Path

import numpy as np

import minigrad_ckpt as mg

PORTED = Path(__file__).parents[2] / "examples" / "ported"
if str(PORTED) not in sys.path:
    sys.path.insert(0, str(PORTED))  # where the ports import their siblings and local_data from


def load_program(name: str):
    spec = importlib.util.spec_from_file_location(f"ported_{name}", PORTED / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module.__name__] = module  # where dataclasses look up the module of a class
    spec.loader.exec_module(module)
    return module


def weights(ref, prefix: str) -> dict[str, np.ndarray]:
    return {k[len(prefix):]: ref[k] for k in ref.files if k.startswith(prefix)}


def replay_draws(monkeypatch, ref, run: str) -> list[str]:
    """mg.<fn> gives back, in order, what torch.<fn> drew in the reference run (randn, randn_like,
    multinomial, randint, randperm, normal; the orders of RandomSampler and random_split through
    randperm), and an in-place draw ``x.<method>(...)`` (``"Tensor.bernoulli_"``) writes torch's values."""
    fns = [str(f) for f in ref[f"{run}|draw_fns"] if f]
    draws = iter(enumerate(fns))
    called: list[str] = []

    def replay(fn):
        def draw(*args, **kwargs):
            i, expected = next(draws)
            assert expected == fn, f"draw {i}: the program called mg.{fn}, torch.{expected} at this point"
            called.append(fn)
            value = mg.tensor(ref[f"{run}|draw|{i}"])
            if not fn.startswith("Tensor."):
                return value
            with mg.no_grad():  # an in-place draw (x.bernoulli_(p)): torch's values written into x
                return args[0].copy_(value)
        return draw

    for fn in set(fns):
        owner, name = (mg.Tensor, fn[len("Tensor."):]) if fn.startswith("Tensor.") else (mg, fn)
        monkeypatch.setattr(owner, name, replay(fn))
    if "multinomial" in fns:  # distributions.Categorical draws through it, as torch's through torch.multinomial
        monkeypatch.setattr(mg.creation, "multinomial", mg.multinomial)
    monkeypatch.setattr(mg.utils.data.RandomSampler, "__iter__", _torchs_sampler_order)
    split = mg.utils.data.dataset.random_split

    def torchs_split(dataset, lengths, generator=None):
        """random_split's subsets by torch.randperm's order (mg's draws from its own generator)."""
        perm = mg.randperm(len(dataset)).tolist()
        sizes = [len(part) for part in split(dataset, lengths, generator)]
        return [mg.utils.data.Subset(dataset, perm[sum(sizes[:i]):sum(sizes[:i + 1])]) for i in range(len(sizes))]

    monkeypatch.setattr(mg.utils.data.dataset, "random_split", torchs_split)
    monkeypatch.setattr(mg.utils.data, "random_split", torchs_split)
    return called


def _torchs_sampler_order(sampler):
    """torch's RandomSampler orders an epoch by torch.randperm (mg's draws from its own generator):
    one permutation per whole pass, then one more of which it keeps the first ``num_samples % n``."""
    n = len(sampler.data_source)
    whole = [i for _ in range(sampler.num_samples // n) for i in mg.randperm(n).tolist()]
    return iter(whole + mg.randperm(n).tolist()[:sampler.num_samples % n])


def _names(part: str, name: str) -> bool:
    """Whether an excused ``part`` names weight ``name``: a whole dotted suffix of it
    (``"conv3.conv2d.bias"`` is ``res1.conv3.conv2d.bias`` but not ``deconv3.conv2d.bias``)."""
    return name == part or name.endswith("." + part)


def run_and_compare(monkeypatch, ref, run: str, program: str, argv: list[str], float64: bool,
                    excused: dict | None = None):
    """Run ``program`` from torch's starting weights and draws; compare its history and final weights
    (``excused``: weight name -> the elements left out of the comparison)."""
    called = replay_draws(monkeypatch, ref, run)
    module = load_program(program)

    def init(key, model):
        model.load_state_dict(weights(ref, f"{run}|init|{key}|"))

    with contextlib.redirect_stdout(io.StringIO()):
        history, models = module.main(argv, init=init)
    assert len(called) == sum(1 for f in ref[f"{run}|draw_fns"] if f)
    rtol, atol = (1e-10, 1e-12) if float64 else (2e-5, 2e-6)
    np.testing.assert_allclose(history, ref[f"{run}|history"], rtol=rtol, atol=atol)
    keys = dict.fromkeys(k.split("|")[2] for k in ref.files if k.startswith(f"{run}|final|"))
    for key, model in zip(keys, models if isinstance(models, tuple) else (models,)):
        state = model.state_dict()
        expected = weights(ref, f"{run}|final|{key}|")
        assert list(state) == list(expected)
        for name, want in expected.items():
            got = state[name].numpy()
            for part, where in (excused or {}).items():
                if _names(part, name):
                    got, want = np.delete(got, where), np.delete(want, where)
            # float32: Adam divides by sqrt(v), so where a weight's gradients nearly cancel over the
            # steps, round-off moves it by a fraction of a step (dcgan: 3.6e-5 of lr=2e-4 steps, at
            # one of 8192 weights; its float64 gradients are torch's to 1e-15)
            np.testing.assert_allclose(got, want, rtol=1e-10 if float64 else 1e-3,
                                       atol=1e-12 if float64 else 5e-5, err_msg=f"{run}: {key}.{name}")
    return module


def check_recorded_run(monkeypatch, program: str, run: str, argv: list[str]):
    """:func:`run_and_compare` against ``ported_<program>_reference.npz`` (``make_ported_<program>.py``'s
    fixture); float64 where the run passed ``--double``."""
    ref = np.load(Path(__file__).parent / f"ported_{program}_reference.npz")
    return run_and_compare(monkeypatch, ref, run, program, argv, float64="--double" in argv)
