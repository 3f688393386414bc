"""What the test of a ported program needs to replay a fixture written by
``make_ported_reference.py`` (or its ``record_runs``): torch's random draws given back in order,
torch's weights loaded at ``init`` (or ``ported_init.start_weights``), and the run's history and final
weights compared (no torch needed).  ``tests/test_ported_examples.py`` and the
``tests/test_ported_<program>.py`` files use it (``program_test``: those of ``ported_record.py``'s fixtures)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
from pathlib import Path

import numpy as np
import pytest
from ported_init import start_weights

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


class _Creation:
    """``mg.creation`` with some of its draws replaced."""

    def __init__(self, replaced: dict) -> None:
        self.__dict__.update(replaced)

    def __getattr__(self, name: str):
        return getattr(mg.creation, name)


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
            if not fn.startswith("Tensor."):  # (makemore's torch.randn((27, 27), generator=g, requires_grad=True))
                return value.requires_grad_(bool(kwargs.get("requires_grad", False)))
            with mg.no_grad():  # an in-place draw (x.bernoulli_(p)): torch's values written into x
                return args[0].copy_(value)
        return draw

    replayed = {fn: replay(fn) for fn in set(fns)}
    for fn, draw in replayed.items():
        owner, name = (mg.Tensor, fn[len("Tensor."):]) if fn.startswith("Tensor.") else (mg, fn)
        monkeypatch.setattr(owner, name, draw, raising=False)  # (mg.uniform_: the fills after init, see _init)
    # The distributions draw through mg.creation (Categorical.sample: multinomial, Uniform: rand,
    # Normal and MultivariateNormal: randn), as torch's through torch.<fn>; Tensor.normal_ and the
    # other fills draw through it too, and torch's fills are not recorded: so the distributions'
    # modules alone see the replayed draws.
    seen_by_distributions = _Creation(replayed)
    for name, module in list(sys.modules.items()):
        if name.startswith("minigrad_ckpt.distributions.") and getattr(module, "creation", None) is mg.creation:
            monkeypatch.setattr(module, "creation", seen_by_distributions)
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
    one permutation per whole pass, then one more of which it keeps the first ``num_samples % n``.
    A generator, as torch's: each permutation is drawn when the loader reaches it -- the last one once
    the epoch's last batch is out -- so the draws a training step makes in between keep torch's order."""
    n = len(sampler.data_source)
    for _ in range(sampler.num_samples // n):
        yield from mg.randperm(n).tolist()
    yield from mg.randperm(n).tolist()[:sampler.num_samples % n]


def _names(part: str, name: str) -> bool:
    """Whether an excused ``part`` names weight ``name``: a whole dotted suffix of it
    (``"conv3.conv2d.bias"`` is ``res1.conv3.conv2d.bias`` but not ``deconv3.conv2d.bias``)."""
    return name == part or name.endswith("." + part)


def _init(monkeypatch, ref, run: str, key: str, model) -> None:
    """The test hook ``init(key, model)``: torch's starting weights from the fixture, or where it stores
    none (``ported_record.py``'s fixtures), ``ported_init.start_weights``; and from here on (the models
    built) ``Tensor.uniform_`` fills with torch's, where the fixture recorded them (as ``"uniform_"``)."""
    stored = weights(ref, f"{run}|init|{key}|")
    model.load_state_dict(stored or start_weights(model))
    if "uniform_" in {str(f) for f in ref[f"{run}|draw_fns"]}:
        monkeypatch.setattr(mg.Tensor, "uniform_", lambda self, *args, **kwargs: self.copy_(mg.uniform_(self)))


def run_and_compare(monkeypatch, ref, run: str, program: str, argv: list[str], float64: bool,
                    excused: dict | None = None):
    """Run ``program`` from torch's starting weights and draws; compare its history and final weights
    (``excused``: weight name -> the elements left out of the comparison)."""
    called = replay_draws(monkeypatch, ref, run)
    module = load_program(program)

    def init(key, model):
        _init(monkeypatch, ref, run, key, model)

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


def program_test(program: str):
    """A test, one case a run of ``program``'s fixture written by ``ported_record.py`` (which keeps each
    run's command line, ``<run>|argv``): :func:`check_recorded_run` of each."""
    ref = np.load(Path(__file__).parent / f"ported_{program}_reference.npz")

    @pytest.mark.parametrize("run", [k.split("|")[0] for k in ref.files if k.endswith("|argv")])
    def test(monkeypatch, run):
        check_recorded_run(monkeypatch, program, run, [str(a) for a in ref[f"{run}|argv"] if a])

    return test
