"""Module state-dict hooks, ``Module.type`` and ``Module.bfloat16`` against PyTorch 2.13.

The expected values are what the same calls give in torch 2.13 (written beside each); torch is not
imported here.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn


def build() -> nn.Sequential:
    mg.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 1)))


def named(m: nn.Module) -> dict[int, str]:
    return {id(mod): n or "root" for n, mod in m.named_modules()}


def test_state_dict_pre_and_post_hooks_run_in_pytorchs_order():
    m, log = build(), []
    names = named(m)
    for mod in m.modules():
        mod.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(("pre", names[id(mod)], prefix)))
        mod.register_state_dict_post_hook(
            lambda mod, sd, prefix, meta: log.append(("post", names[id(mod)], prefix, len(sd), sorted(meta))))
    assert list(m.state_dict(prefix="x.")) == ["x.0.weight", "x.0.bias", "x.1.0.weight", "x.1.0.bias"]
    # torch: the same list for the same model and hooks
    assert log == [("pre", "root", "x."), ("pre", "0", "x.0."), ("post", "0", "x.0.", 2, ["version"]),
                   ("pre", "1", "x.1."), ("pre", "1.0", "x.1.0."), ("post", "1.0", "x.1.0.", 4, ["version"]),
                   ("post", "1", "x.1.", 4, ["version"]), ("post", "root", "x.", 4, ["version"])]


def test_state_dict_post_hooks_change_the_dict_in_place_and_private_ones_may_replace_it():
    m = build()

    def drop_bias(mod, sd, prefix, meta):
        del sd[prefix + "0.bias"]
    handle = m.register_state_dict_post_hook(drop_bias)
    assert list(m.state_dict()) == ["0.weight", "1.0.weight", "1.0.bias"]  # torch: the same
    handle.remove()
    assert list(m.state_dict()) == ["0.weight", "0.bias", "1.0.weight", "1.0.bias"]
    m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: {"only": 1})
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        m.state_dict()
    # torch: the private hook's new dict is state_dict()'s at the root; a child's is dropped
    root = build()
    root._register_state_dict_hook(lambda mod, sd, prefix, meta: {"only": 1})
    assert root.state_dict() == {"only": 1}
    child = build()
    child[1]._register_state_dict_hook(lambda mod, sd, prefix, meta: {"only": 1})
    assert list(child.state_dict()) == ["0.weight", "0.bias", "1.0.weight", "1.0.bias"]


def test_load_pre_hook_renames_keys_of_an_old_checkpoint():
    want = build().state_dict()
    old = {k.replace("0.", "first.", 1) if k.startswith("0.") else k: v.numpy() * 2 for k, v in want.items()}
    m = build()
    calls = []

    def rename(mod, sd, prefix, meta, strict, missing, unexpected, errors):
        calls.append((mod is m, prefix, strict))
        for k in list(sd):
            if k.startswith(prefix + "first."):
                sd["0." + k[len(prefix + "first."):]] = sd.pop(k)
    m.register_load_state_dict_pre_hook(rename)
    keys = m.load_state_dict(old)
    assert repr(keys) == "<All keys matched successfully>" and calls == [(True, "", True)]
    assert "first.weight" in old  # the caller's dict is left as it was (torch: a copy is hooked)
    np.testing.assert_array_equal(m[0].weight.numpy(), want["0.weight"].numpy() * 2)
    got = []  # torch's private form, on a child: hook(state_dict, prefix, ...), no module
    m[1]._register_load_state_dict_pre_hook(lambda sd, prefix, *rest: got.append((prefix, len(rest))))
    m.load_state_dict(want)
    assert got == [("1.", 5)]


def test_a_load_pre_hook_sees_its_prefix_entries_and_metadata_as_pytorchs():
    # torch 2.13 (its load(module, local_state_dict, prefix)): each module's pre-hook gets the entries under
    # its prefix as its parent's hooks left them, and local_metadata {'version': 1}; a key a child's hook
    # adds outside its prefix is read by nobody.  The engine handed every hook the whole dict and {}, so
    # 'stray' came back as unexpected
    m = build()
    seen = []

    def hook(mod, sd, prefix, meta, strict, missing, unexpected, errors):
        seen.append((prefix, sorted(sd), dict(meta)))
        if prefix == "1.0.":
            sd[prefix + "weight"] = sd.pop(prefix + "old_weight")
            sd["stray"] = mg.zeros(1)

    for mod in m.modules():
        mod.register_load_state_dict_pre_hook(hook)
    sd = m.state_dict()
    sd["1.0.old_weight"] = sd.pop("1.0.weight")
    assert repr(m.load_state_dict(sd)) == "<All keys matched successfully>"
    v1 = {"version": 1}
    assert seen == [("", ["0.bias", "0.weight", "1.0.bias", "1.0.old_weight"], v1), ("0.", ["0.bias", "0.weight"], v1),
                    ("1.", ["1.0.bias", "1.0.old_weight"], v1), ("1.0.", ["1.0.bias", "1.0.old_weight"], v1)]


def test_a_load_pre_hook_keeps_the_format_version_of_the_state_dict():
    # torch 2.13: a BatchNorm state dict of version 2 without num_batches_tracked is refused ('Missing key(s) in
    # state_dict: "num_batches_tracked"'), pre-hook or not; with any pre-hook registered the engine's copy lost
    # _metadata, read the dict as of an old version, and filled the counter with 0
    bn = nn.BatchNorm1d(2)
    bn.register_load_state_dict_pre_hook(lambda *args: None)
    sd = nn.BatchNorm1d(2).state_dict()
    del sd["num_batches_tracked"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "num_batches_tracked"'):
        bn.load_state_dict(sd)


def test_load_post_hooks_run_children_first_and_may_forgive_keys():
    partial = {k: v for k, v in build().state_dict().items() if k != "1.0.bias"}
    partial["extra"] = mg.zeros(1)
    m, log = build(), []
    names = named(m)
    for mod in m.modules():
        mod.register_load_state_dict_post_hook(
            lambda mod, keys: log.append((names[id(mod)], list(keys.unexpected_keys))))
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "1\.0\.bias"'):
        m.load_state_dict(partial)
    # torch: children before their parent; every hook sees the unexpected key
    assert log == [("0", ["extra"]), ("1.0", ["extra"]), ("1", ["extra"]), ("root", ["extra"])]
    forgiving = build()

    def forgive(mod, keys):
        keys.missing_keys.clear()
        keys.unexpected_keys.clear()
    forgiving.register_load_state_dict_post_hook(forgive)
    assert repr(forgiving.load_state_dict(partial)) == "<All keys matched successfully>"  # torch: the same
    returning = build()
    returning.register_load_state_dict_post_hook(lambda mod, keys: 1)
    with pytest.raises(AssertionError, match="not expected to return new values"):
        returning.load_state_dict(build().state_dict())


def test_without_post_hooks_a_strict_failure_loads_nothing():
    m = build()
    before = m[0].weight.numpy().copy()
    sd = {k: v.numpy() + 1 for k, v in build().state_dict().items() if k != "1.0.bias"}
    with pytest.raises(RuntimeError, match=r"Missing key\(s\) in state_dict"):
        m.load_state_dict(sd)
    np.testing.assert_array_equal(m[0].weight.numpy(), before)


def test_state_dict_hooks_see_a_snapshot_round_trip(tmp_path):
    m = build()
    m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: sd.__setitem__(prefix + "scale", mg.ones(1)))
    m.register_load_state_dict_pre_hook(lambda mod, sd, prefix, *rest: sd.pop(prefix + "scale"))
    mg.save(m.state_dict(), tmp_path / "m.pt")
    assert "scale" in mg.load(tmp_path / "m.pt")
    fresh = build()
    fresh.register_load_state_dict_pre_hook(lambda mod, sd, prefix, *rest: sd.pop(prefix + "scale"))
    fresh.load_state_dict(mg.load(tmp_path / "m.pt"))


@pytest.mark.parametrize("dst", [mg.float64, "torch.DoubleTensor", "float64"])
def test_module_type_casts_every_tensor_integer_buffers_too(dst):
    bn = nn.BatchNorm1d(2)
    weight = bn.weight
    assert bn.type(dst) is bn
    # torch: nn.BatchNorm1d(2).type(torch.float64).num_batches_tracked.dtype == torch.float64
    assert bn.num_batches_tracked.dtype == np.float64 and bn.weight.dtype == np.float64
    assert bn.weight is weight  # the same Parameter (an optimizer built before keeps it)
    out = bn(mg.randn(3, 2, dtype="float64"))
    assert out.dtype == np.float64


def test_module_type_to_an_integer_dtype_is_refused_for_trainable_parameters():
    lin = nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match="must be floating point or complex"):
        lin.type(mg.int64)
    assert lin.weight.dtype == np.float32 and lin.bias.dtype == np.float32  # nothing changed
    # torch: nn.Linear(2, 2).requires_grad_(False).type(torch.int64).weight.dtype == torch.int64
    assert nn.Linear(2, 2).requires_grad_(False).type(mg.int64).weight.dtype == np.int64


def test_half_works_and_bfloat16_is_refused_naming_what_to_use():
    assert nn.Linear(2, 2).half().weight.dtype == np.float16
    with pytest.raises(TypeError, match=r"no bfloat16.*\.half\(\).*\.float\(\)"):
        nn.Linear(2, 2).bfloat16()


# ------------------------------------------------------------------ model surgery and overrides
def test_set_submodule_as_pytorch():
    m = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.ReLU()))
    m.set_submodule("1.0", nn.GELU())
    assert isinstance(m[1][0], nn.GELU)
    m.set_submodule("1.new", nn.Tanh())  # torch: a new name is added unless strict
    assert [n for n, _ in m.named_modules()] == ["", "0", "1", "1.0", "1.new"]
    # torch: the same kinds of error and messages for each
    for target, module, strict, kind, message in [
            ("", nn.ReLU(), False, ValueError, "without a target name"),
            ("1.0", 3, False, ValueError, "is not an nn.Module"),
            ("2.x", nn.ReLU(), False, AttributeError, "Sequential has no attribute `2`"),
            ("0.weight", nn.ReLU(), False, AttributeError, "`weight` is not an nn.Module"),
            ("1.zzz", nn.ReLU(), True, AttributeError, "Sequential has no attribute `zzz`")]:
        with pytest.raises(kind, match=message):
            m.set_submodule(target, module, strict=strict)


def test_an_overridden_save_to_state_dict_is_heard_and_hooks_see_the_version():
    class Scaled(nn.Linear):
        def _save_to_state_dict(self, destination, prefix, keep_vars):
            super()._save_to_state_dict(destination, prefix, keep_vars)
            destination[prefix + "scale"] = mg.tensor(2.0)

    m = nn.Sequential(Scaled(2, 2))
    assert list(m.state_dict()) == ["0.weight", "0.bias", "0.scale"]  # torch: the same
    seen = []
    m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: seen.append(meta))
    m.state_dict()
    assert seen == [{"version": 1}]
    assert m.load_state_dict(m.state_dict(), strict=False).unexpected_keys == ["0.scale"]  # torch: the same


def test_module_compile_is_accepted_and_changes_nothing():
    m = nn.Linear(2, 2)
    x = mg.randn(3, 2)
    before = m(x).numpy()
    assert m.compile(mode="max-autotune", fullgraph=True) is None  # torch: returns None, in place
    np.testing.assert_array_equal(m(x).numpy(), before)


class Renamed(nn.Module):
    """A layer whose older checkpoints called its weight ``w``: PyTorch's way to read them."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(mg.zeros(2))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        if prefix + "w" in state_dict:
            state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing, unexpected, errors)


class Transposed(nn.Module):
    """Loads its weight from a checkpoint that stores it transposed, without calling super."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(mg.zeros(2, 3))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        if prefix + "weight_t" in state_dict:
            with mg.no_grad():
                self.weight.copy_(state_dict[prefix + "weight_t"].T)
        elif strict:
            missing.append(prefix + "weight_t")


def test_an_overridden_load_from_state_dict_is_what_loads_the_module():
    # torch 2.13, the same classes: m = nn.Sequential(Renamed(), nn.Linear(2, 1))
    #   m.load_state_dict({"0.w": tensor([1., 2.]), "1.weight": ones(1, 2), "1.bias": zeros(1)}) matches every
    #   key and m[0].weight == [1., 2.], strict or not (before: strict raised 'missing keys: 0.weight ...',
    #   strict=False loaded nothing into m[0] without a word)
    old = {"0.w": mg.tensor([1.0, 2.0]), "1.weight": mg.ones(1, 2), "1.bias": mg.zeros(1)}
    for strict in (True, False):
        m = nn.Sequential(Renamed(), nn.Linear(2, 1))
        assert repr(m.load_state_dict(old, strict=strict)) == "<All keys matched successfully>"
        assert m[0].weight.tolist() == [1.0, 2.0] and m[1].weight.tolist() == [[1.0, 1.0]]
    assert "0.w" in old  # the caller's dict is left as it was
    # torch: Transposed loads weight_t.T; a missing key is what the override says; '0.weight' is not
    #   unexpected (the override does not look for strays)
    t = nn.Sequential(Transposed())
    assert repr(t.load_state_dict({"0.weight_t": mg.arange(6.0).reshape(3, 2)})) == "<All keys matched successfully>"
    assert t[0].weight.tolist() == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "0\.weight_t"'):
        t.load_state_dict({"0.weight": mg.zeros(2, 3)})
    assert t.load_state_dict({"0.weight": mg.zeros(2, 3)}, strict=False) == (["0.weight_t"], [])


def test_module_by_module_loading_notes_keys_as_pytorch():
    # torch: stray keys are noted by the module whose prefix they carry, parents first
    #   -> unexpected ['2.a', 'top', '0.zz', '1.zz.q']
    m = nn.Sequential(Renamed(), nn.Linear(2, 1))
    sd = {"0.w": mg.tensor([1.0, 2.0]), "1.weight": mg.ones(1, 2), "1.bias": mg.zeros(1), "0.zz": mg.zeros(1),
          "1.zz.q": mg.zeros(1), "2.a": mg.zeros(1), "top": mg.zeros(1)}
    assert m.load_state_dict(sd, strict=False) == ([], ["2.a", "top", "0.zz", "1.zz.q"])
    # torch: 'Missing key(s) in state_dict: "1.bias"' and 'size mismatch for 0.weight' together
    with pytest.raises(RuntimeError,
                       match=r'Missing key\(s\) in state_dict: "1\.bias"\. \n\tsize mismatch for 0\.weight'):
        m.load_state_dict({"0.w": mg.zeros(3), "1.weight": mg.ones(1, 2)})
    # torch: assign=True puts the checkpoint's float64 tensor in, as a Parameter keeping requires_grad
    m = nn.Sequential(Renamed())
    m[0].weight.requires_grad_(False)
    m.load_state_dict({"0.w": mg.tensor([3.0, 4.0], dtype="float64")}, assign=True)
    w = m[0].weight
    assert isinstance(w, nn.Parameter) and w.dtype == np.float64 and not w.requires_grad and w.tolist() == [3.0, 4.0]
    # torch: a load pre-hook runs in its module's step and sees strict=True even for strict=False
    seen = []
    plain = nn.Sequential(nn.Linear(2, 1))  # (no override: loaded all at once, the same hooks' arguments)
    for mod in (m[0], plain[0]):
        mod.register_load_state_dict_pre_hook(lambda mod, sd, prefix, md, strict, *rest: seen.append((prefix, strict)))
    m.load_state_dict({"0.w": mg.zeros(2)}, strict=False)
    plain.load_state_dict({"0.weight": mg.zeros(1, 2)}, strict=False)
    assert seen == [("0.", True), ("0.", True)]


def test_a_childs_state_dict_override_is_heard_and_positional_arguments_work():
    class DropsTmp(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(mg.ones(1))
            self.tmp = nn.Parameter(mg.zeros(1))

        def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
            sd = super().state_dict(*args, destination=destination, prefix=prefix, keep_vars=keep_vars)
            sd.pop(prefix + "tmp", None)
            return sd

    # torch: list(nn.Sequential(DropsTmp(), nn.Linear(1, 1)).state_dict()) == ['0.w', '1.weight', '1.bias']
    # (before: '0.tmp' too -- the parent walked past the child's override)
    assert list(nn.Sequential(DropsTmp(), nn.Linear(1, 1)).state_dict()) == ["0.w", "1.weight", "1.bias"]
    # torch: the deprecated positional form, with a FutureWarning: nn.Linear(1, 1).state_dict(None, "p.")
    with pytest.warns(FutureWarning, match="Positional args"):
        assert list(nn.Linear(1, 1).state_dict(None, "p.")) == ["p.weight", "p.bias"]
    with pytest.warns(FutureWarning):
        assert nn.Linear(1, 1).state_dict(None, "", True)["weight"].requires_grad
