"""``load_state_dict``'s ``unexpected_keys`` in PyTorch's order, and without the keys PyTorch never
judges.  PyTorch's ``load`` walks the modules (parents first) and each one lists the keys under its
prefix that name nothing it has -- its ``_extra_state`` first, then in the state dict's order -- so the
list is grouped by the module where a key's path leaves the tree; a key under a child registered as
None is passed over by the parent (it names a child) and read by no one.  torch 2.13, for
``Sequential(Linear(1, 1), Sequential(Linear(1, 1)))`` and the extra keys ``1.0.zz, 0.yy, xx, 1.ww,
2.a``: ``['xx', '2.a', '0.yy', '1.ww', '1.0.zz']``.  The engine listed them in the state dict's order
and reported ``gone.weight`` under ``add_module("gone", None)``."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg

nn = mg.nn


class Renaming(nn.Linear):
    """An override of ``_load_from_state_dict``: the module-by-module path says the same."""

    def _load_from_state_dict(self, state_dict, prefix, *args):
        super()._load_from_state_dict(state_dict, prefix, *args)


def with_pre_hook(model):
    model.register_load_state_dict_pre_hook(lambda *args: None)
    return model


def with_post_hook(model):
    model.register_load_state_dict_post_hook(lambda *args: None)
    return model


def as_is(model):
    return model


LOAD_PATHS = [as_is, with_pre_hook, with_post_hook]


def tree(leaf=nn.Linear):
    return nn.Sequential(leaf(1, 1), nn.Sequential(leaf(1, 1)))


@pytest.mark.parametrize("leaf", [nn.Linear, Renaming])
@pytest.mark.parametrize("path", LOAD_PATHS)
def test_unexpected_keys_grouped_by_the_module_that_finds_them(leaf, path):
    model = path(tree(leaf))
    extra = {k: mg.ones(1) for k in ["1.0.zz", "0.yy", "xx", "1.ww", "2.a"]}
    result = model.load_state_dict({**extra, **model.state_dict()}, strict=False)
    assert result.missing_keys == []
    assert result.unexpected_keys == ["xx", "2.a", "0.yy", "1.ww", "1.0.zz"]


@pytest.mark.parametrize("path", LOAD_PATHS)
def test_a_modules_extra_state_before_its_other_keys(path):
    model = path(nn.Sequential(nn.Linear(1, 1)))
    state = {**model.state_dict(), "0._extra_state": 1, "zz": mg.ones(1), "_extra_state": 2}
    assert model.load_state_dict(state, strict=False).unexpected_keys == ["_extra_state", "zz", "0._extra_state"]


@pytest.mark.parametrize("leaf", [nn.Linear, Renaming])
@pytest.mark.parametrize("path", LOAD_PATHS)
def test_a_key_under_a_child_registered_as_none_is_judged_by_no_one(leaf, path):
    model = path(nn.Sequential(leaf(1, 1)))
    model.add_module("gone", None)
    state = {**model.state_dict(), "gone.weight": mg.ones(1), "gone": mg.ones(1)}
    assert tuple(model.load_state_dict(state, strict=False)) == ([], ["gone"])
    model.load_state_dict({**model.state_dict(), "gone.weight": mg.ones(1)})  # strict: nothing to complain of


def test_the_strict_message_lists_them_in_that_order():
    model = tree()
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "xx", "0.yy", "1.0.zz". '):
        model.load_state_dict({"1.0.zz": mg.ones(1), "0.yy": mg.ones(1), "xx": mg.ones(1), **model.state_dict()})


def test_a_module_used_twice_finds_the_keys_under_each_of_its_names():
    shared = nn.Linear(1, 1)
    model = nn.Sequential(shared, nn.ReLU(), shared)
    state = {"2.q": mg.ones(1), "1.q": mg.ones(1), "0.q": mg.ones(1), **model.state_dict()}
    assert model.load_state_dict(state, strict=False).unexpected_keys == ["0.q", "1.q", "2.q"]
