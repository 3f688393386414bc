"""Module API behaviours from PyTorch's test/test_nn.py that minigrad_ckpt got wrong, each as PyTorch
behaves (values written out by hand from PyTorch's documented rules; no torch import)."""
import pytest

import minigrad_ckpt as mg

nn = mg.nn


# --------------------------------------------------------------- extra state
class _SavesOnly(nn.Module):
    def get_extra_state(self):
        return {"foo": 5}


class _LoadsOnly(nn.Module):
    def set_extra_state(self, state):
        pass


class _Both(nn.Module):
    def __init__(self, foo=3):
        super().__init__()
        self.foo = foo

    def get_extra_state(self):
        return self.foo

    def set_extra_state(self, state):
        self.foo = state


def test_extra_state_is_saved_by_the_getter_and_expected_by_the_setter():
    # PyTorch saves _extra_state when get_extra_state is overridden, and asks for it on loading when
    # set_extra_state is: a module with only the getter finds its own key unexpected, one with only
    # the setter finds it missing (was: the getter decided both, calling the base setter's RuntimeError)
    saves = _SavesOnly()
    assert list(saves.state_dict()) == ["_extra_state"]
    with pytest.raises(RuntimeError, match=r'Unexpected key\(s\) in state_dict: "_extra_state"'):
        saves.load_state_dict(saves.state_dict())
    assert saves.load_state_dict(saves.state_dict(), strict=False).unexpected_keys == ["_extra_state"]

    loads = _LoadsOnly()
    assert list(loads.state_dict()) == []
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "_extra_state"'):
        loads.load_state_dict(loads.state_dict())
    assert loads.load_state_dict({}, strict=False).missing_keys == ["_extra_state"]

    both, other = _Both(7), _Both(1)
    other.load_state_dict(both.state_dict())
    assert other.foo == 7


@pytest.mark.parametrize("parent", [nn.Sequential, lambda m: nn.Sequential(nn.Linear(1, 1), m)])
def test_extra_state_rules_hold_inside_a_tree(parent):
    tree = parent(_SavesOnly())
    key = [k for k in tree.state_dict() if k.endswith("_extra_state")]
    with pytest.raises(RuntimeError, match="Unexpected key"):
        tree.load_state_dict(tree.state_dict())
    assert tree.load_state_dict(tree.state_dict(), strict=False).unexpected_keys == key


# --------------------------------------------------------- recurrent cells
@pytest.mark.parametrize("cell", [lambda: nn.RNNCell(10, 0), lambda: nn.RNNCell(10, 0, nonlinearity="relu"),
                                  lambda: nn.GRUCell(10, 0), lambda: nn.LSTMCell(10, 0)])
def test_recurrent_cell_with_hidden_size_zero_builds_and_runs(cell):
    # PyTorch's init bound 1/sqrt(hidden_size) is 0 for hidden_size=0 (was a ZeroDivisionError)
    c = cell()
    out = c(mg.randn(3, 10))
    outs = out if isinstance(out, tuple) else (out,)
    assert all(o.shape == (3, 0) for o in outs)


# ------------------------------------------------------ parameter containers
def test_parameter_list_refuses_a_tensor_to_extend_with():
    # a Tensor is iterable by rows; PyTorch refuses it rather than adding each row (mg added rows)
    pl = nn.ParameterList([nn.Parameter(mg.randn(2, 2))])
    with pytest.raises(TypeError, match="should be called with an iterable, but got"):
        pl.extend(nn.Parameter(mg.randn(2, 2)))
    with pytest.raises(TypeError):
        pl += nn.Parameter(mg.randn(2, 2))
    assert len(pl) == 1


@pytest.mark.parametrize("container", ["list", "dict"])
def test_parameter_containers_hold_any_object_as_pytorch(container):
    # PyTorch's ParameterList/Dict hold non-tensor objects as plain entries that parameters() skips
    # (was a TypeError); tensors still become Parameters
    if container == "list":
        c = nn.ParameterList([mg.ones(2), "foo"])
        c += ["bar", mg.zeros(3)]
        entries = list(c)
        assert [type(e).__name__ for e in entries] == ["Parameter", "str", "str", "Parameter"]
        assert c[-3] == "foo" and c[1:3][1] == "bar"
        assert [n for n, _ in c.named_parameters()] == ["0", "3"]
        assert repr(c).splitlines()[2] == "    (1): Object of type: str"
    else:
        c = nn.ParameterDict({"p": mg.ones(2)})
        c.update({"foo": "bar", "q": mg.zeros(1)})
        assert list(c) == ["p", "foo", "q"] and c["foo"] == "bar" and "foo" in c
        assert isinstance(c["q"], nn.Parameter)
        assert [n for n, _ in c.named_parameters()] == ["p", "q"]
        q = c["q"]
        assert c.popitem() == ("q", q) and "q" not in c
        assert c.pop("foo") == "bar" and list(c) == ["p"]
        c.setdefault("z")
        assert c["z"] is None and len(c) == 2


def test_parameter_dict_key_and_update_errors_are_pytorchs():
    pd = nn.ParameterDict()
    with pytest.raises(TypeError, match="not a string"):
        pd[1] = mg.ones(1)
    with pytest.raises(TypeError):
        pd.update(1)
    with pytest.raises(TypeError):
        pd.update([1])
    with pytest.raises(ValueError, match="2 is required"):
        pd.update(nn.Parameter(mg.randn(10, 10)))


# ------------------------------------------------------------- registration
def test_named_modules_memo_holds_the_modules():
    # PyTorch's memo is a set of modules: a caller passing one can ask it afterwards (mg kept ids)
    s = nn.Sequential(nn.ReLU())
    memo = set()
    list(s.named_modules(memo=memo))
    assert s in memo and s[0] in memo


def test_buffer_assignment_calls_an_override_without_persistent():
    # a subclass written before register_buffer had `persistent` still works, as in PyTorch
    calls = []

    class Old(nn.Linear):
        def __init__(self):
            super().__init__(2, 2)
            self.bar = nn.Buffer(mg.rand(2, 2))

        def register_buffer(self, name, value):
            calls.append(name)
            super().register_buffer(name, value, True)

    m = Old()
    assert calls == ["bar"] and "bar" in m.state_dict()
    with pytest.raises(RuntimeError, match="without the persistent argument"):
        m.baz = nn.Buffer(mg.rand(1), persistent=False)


def test_parameter_containers_pickled_before_they_held_other_objects_still_load():
    """A ParameterList/ParameterDict pickled by an earlier version has no _size/_keys (its entries were
    all parameters): len(), iteration and indexing work on it after loading."""
    import pickle

    plist, pdict = mg.nn.ParameterList([mg.ones(2), mg.zeros(3)]), mg.nn.ParameterDict({"a": mg.ones(1)})
    del plist.__dict__["_size"], pdict.__dict__["_keys"]  # as the earlier version pickled them
    plist, pdict = pickle.loads(pickle.dumps(plist)), pickle.loads(pickle.dumps(pdict))
    assert len(plist) == 2 and [p.shape for p in plist] == [(2,), (3,)] and plist[-1].shape == (3,)
    assert len(pdict) == 1 and list(pdict) == ["a"] and "a" in pdict and pdict["a"].shape == (1,)
