"""``mg.func.functional_call``: a module run with tensors of one's own for its parameters and buffers,
under the function transforms. Expected values are torch 2.13's ``torch.func.functional_call`` for the
same weights (the torch expression quoted beside each); torch is not imported."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.func import functional_call


def tied_pair(dtype: str = "float64") -> nn.Sequential:
    """Linear(2, 2) twice with one shared weight (eye), biases [0.5, -0.5] and [1, 2]."""
    a, b = nn.Linear(2, 2, dtype=dtype), nn.Linear(2, 2, dtype=dtype)
    b.weight = a.weight
    with mg.no_grad():
        a.weight.copy_(mg.eye(2, dtype=dtype))
        a.bias.copy_(mg.tensor([0.5, -0.5], dtype=dtype))
        b.bias.copy_(mg.tensor([1.0, 2.0], dtype=dtype))
    return nn.Sequential(a, b)


X = [[3.0, -1.0]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tied_weights_stand_in_together_unless_told_not_to(dtype):
    seq, x = tied_pair(dtype), mg.tensor(X, dtype=dtype)
    zeros = mg.zeros(2, 2, dtype=dtype)
    # torch: functional_call(s, {'0.weight': zeros}, (x,)) == [[1., 2.]]; with tie_weights=False [[1.5, 1.5]]
    np.testing.assert_allclose(functional_call(seq, {"0.weight": zeros}, (x,)).numpy(), [[1.0, 2.0]])
    np.testing.assert_allclose(functional_call(seq, {"0.weight": zeros}, (x,), tie_weights=False).numpy(),
                               [[1.5, 1.5]])
    np.testing.assert_allclose(seq(x).numpy(), [[4.5, 0.5]])  # the module itself is untouched
    assert isinstance(seq[0].weight, nn.Parameter) and seq[1].weight is seq[0].weight


def test_grad_and_jvp_with_respect_to_the_weights():
    seq, x = tied_pair(), mg.tensor(X, dtype="float64")
    params = {k: v.detach() for k, v in seq.named_parameters()}
    g = mg.func.grad(lambda p: functional_call(seq, p, (x,)).pow(2).sum())(params)
    # torch: grad(lambda p: functional_call(s, p, (x,)).pow(2).sum())(p)
    np.testing.assert_allclose(g["0.weight"].numpy(), [[58.5, -22.5], [6.5, -2.5]])
    np.testing.assert_allclose(g["0.bias"].numpy(), [9.0, 1.0])
    np.testing.assert_allclose(g["1.bias"].numpy(), [9.0, 1.0])
    w_dot = mg.tensor([[1.0, 2.0], [0.0, 1.0]], dtype="float64")
    out, tangent = mg.func.jvp(lambda w: functional_call(seq, {"0.weight": w}, (x,)),
                               (mg.eye(2, dtype="float64"),), (w_dot,))
    # torch: jvp(lambda w: functional_call(s, {'0.weight': w}, (x,)), (eye,), (W,)) == ([[4.5, .5]], [[1.5, -2.5]])
    np.testing.assert_allclose(out.numpy(), [[4.5, 0.5]])
    np.testing.assert_allclose(tangent.numpy(), [[1.5, -2.5]])


def test_buffers_strictness_hooks_and_restoring_after_an_error():
    bn = nn.BatchNorm1d(2).eval()
    x = mg.tensor([[1.0, 3.0]])
    out = functional_call(bn, {"running_mean": mg.tensor([1.0, 1.0]), "running_var": mg.tensor([4.0, 4.0])}, x)
    np.testing.assert_allclose(out.numpy(), [[0.0, 2.0 / np.sqrt(4 + 1e-5)]], rtol=1e-6)
    assert bn.running_mean.tolist() == [0.0, 0.0]
    lin, seen = nn.Linear(2, 1), []
    lin.register_forward_hook(lambda m, a, o: seen.append(1))  # torch: hooks run under functional_call too
    functional_call(lin, {"weight": mg.ones(1, 2)}, (x,))
    assert seen == [1]
    with pytest.raises(RuntimeError, match="bias"):  # torch: RuntimeError naming the missing key 'bias'
        functional_call(lin, {"weight": mg.ones(1, 2)}, (x,), strict=True)
    with pytest.raises(ValueError, match="multiple dictionaries"):
        functional_call(lin, ({"weight": mg.ones(1, 2)}, {"weight": mg.ones(1, 2)}), (x,))
    own = lin.weight
    with pytest.raises(ValueError):
        functional_call(lin, {"weight": mg.ones(1, 3)}, (x,))  # a shape the forward cannot use
    assert lin.weight is own


class _Tied(mg.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = mg.nn.Linear(2, 2, bias=False)
        self.b = mg.nn.Linear(2, 2, bias=False)
        self.b.weight = self.a.weight
        self.register_buffer("buf", mg.ones(2))
        with mg.no_grad():
            self.a.weight.copy_(mg.tensor([[1.0, 2.0], [3.0, 4.0]]))

    def forward(self, x):
        return self.b(self.a(x)) * self.buf


_W, _W2, _XIN = [[0.0, 1.0], [1.0, 0.0]], [[2.0, 0.0], [0.0, 2.0]], [1.0, 2.0]


def test_tied_weights_strict_and_unregistered_names_as_torchs():
    # expected values and messages: torch.func.functional_call on the same module (torch 2.13)
    m, fc = _Tied(), mg.func.functional_call
    with pytest.raises(ValueError, match=r"multiple values for keys \['a.weight', 'b.weight'\], which are tied"):
        fc(m, {"a.weight": mg.tensor(_W), "b.weight": mg.tensor(_W2)}, (mg.tensor(_XIN),))   # was [4, 2]
    w = mg.tensor(_W)
    np.testing.assert_array_equal(fc(m, {"a.weight": w, "b.weight": w}, (mg.tensor(_XIN),)).numpy(), [1.0, 2.0])
    untied = fc(m, {"a.weight": mg.tensor(_W), "b.weight": mg.tensor(_W2)}, (mg.tensor(_XIN),), tie_weights=False)
    np.testing.assert_array_equal(untied.numpy(), [4.0, 2.0])
    # strict counts a tied name as given when one of its group is (was: "missing keys ['b.weight']")
    tied = fc(m, {"a.weight": mg.tensor(_W), "buf": mg.ones(2)}, (mg.tensor(_XIN),), strict=True)
    np.testing.assert_array_equal(tied.numpy(), [1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"reparametrizing for _Tied:\n\tMissing key\(s\): 'b.weight'."):
        fc(m, {"a.weight": mg.tensor(_W), "buf": mg.ones(2)}, (mg.tensor(_XIN),), strict=True, tie_weights=False)
    with pytest.raises(RuntimeError, match=r"for _Tied:\n\tUnexpected key\(s\): 'zzz'.$"):
        fc(m, {"zzz": mg.ones(2), "a.weight": mg.tensor(_W), "buf": mg.ones(2)}, (mg.tensor(_XIN),), strict=True)
    # a parameter registered as None takes the tensor given (torch [30, 66]; was [27, 59], the bias ignored)
    with_bias = fc(m, {"a.bias": mg.ones(2)}, (mg.tensor(_XIN),))
    np.testing.assert_array_equal(with_bias.numpy(), [30.0, 66.0])
    assert m.a.bias is None and not hasattr(m, "zzz")
    np.testing.assert_array_equal(m(mg.tensor(_XIN)).numpy(), [27.0, 59.0])   # the module is as it was
    g = mg.func.grad(lambda b: fc(m, {"a.bias": b}, (mg.tensor(_XIN),)).sum())(mg.ones(2))
    np.testing.assert_array_equal(g.numpy(), [4.0, 6.0])   # d/db of sum(W (W x + b)) = W^T 1


@pytest.mark.parametrize("value", [3.0, [1.0, 2.0], np.zeros(2)], ids=["number", "list", "ndarray"])
@pytest.mark.parametrize("name", ["0.bias", "0.weight", "extra"])
def test_a_value_that_is_not_a_tensor_is_refused_as_torch_refuses_it(value, name):
    # torch 2.13: functional_call(seq, {'0.bias': 3.0}, (x,)) -> TypeError '3.0 is not an instance of
    # torch.Tensor'; a number here was broadcast into the bias and a list made a tensor, giving an answer.
    seq = tied_pair()
    with pytest.raises(TypeError, match="is not an instance of"):
        functional_call(seq, {name: value}, (mg.tensor(X, dtype="float64"),))
    with pytest.raises(TypeError, match="is not an instance of"):
        functional_call(seq, ({}, {name: value}), (mg.tensor(X, dtype="float64"),))
    assert isinstance(seq[0].bias, nn.Parameter) and not hasattr(seq, "extra")


def test_none_still_stands_in_for_a_parameter():
    seq = tied_pair()  # torch: functional_call(seq, {'0.bias': None, '1.bias': None}, (x,)) == [[3., -1.]]
    out = functional_call(seq, {"0.bias": None, "1.bias": None}, (mg.tensor(X, dtype="float64"),))
    np.testing.assert_allclose(out.numpy(), [[3.0, -1.0]])


@pytest.mark.parametrize("dicts, words", [
    (3, "to be a dict, or a list/tuple of dicts"),              # torch 2.13's ValueError, both
    ([{"0.bias": mg.zeros(2)}, 5], "all elements of parameter_and_buffer_dicts to be dictionaries"),
])
def test_what_is_not_dicts_is_torchs_value_error(dicts, words):
    with pytest.raises(ValueError, match=words):
        functional_call(tied_pair(), dicts, (mg.tensor(X, dtype="float64"),))


def test_the_deprecated_stateless_path_is_functional_call_with_torchs_warning():
    # torch 2.13: torch.nn.utils.stateless.functional_call(nn.Linear(2, 2), {"weight": ones(2, 2), "bias": zeros(2)},
    # (ones(2),)) -> tensor([2., 2.]) with a FutureWarning naming torch.func.functional_call (it was an
    # AttributeError: mg.nn.utils had no stateless)
    m = mg.nn.Linear(2, 2)
    with pytest.warns(FutureWarning, match="functional_call` instead which is a drop-in replacement"):
        out = mg.nn.utils.stateless.functional_call(m, {"weight": mg.ones(2, 2), "bias": mg.zeros(2)}, (mg.ones(2),))
    assert out.tolist() == [2.0, 2.0]
    x = mg.ones(3, 2, dtype=mg.float64)
    p = {"weight": mg.eye(2, dtype=mg.float64) * 3, "bias": mg.ones(2, dtype=mg.float64)}
    with pytest.warns(FutureWarning):
        g = mg.func.grad(lambda p: mg.nn.utils.stateless.functional_call(m.double(), p, x).sum())(p)
    assert g["weight"].tolist() == [[3.0, 3.0], [3.0, 3.0]] and g["bias"].tolist() == [3.0, 3.0]


def test_an_empty_name_is_torchs_key_error():
    # torch 2.13: KeyError 'tensor name can't be empty string ""'; mg set the module's attribute "" for the
    # call and answered as if nothing had been given
    seq = tied_pair()
    for dicts in ({"": mg.ones(2)}, ({"0.bias": mg.zeros(2)}, {"": mg.ones(2)})):
        with pytest.raises(KeyError, match="empty string"):
            functional_call(seq, dicts, (mg.tensor(X, dtype="float64"),))
    assert isinstance(seq[0].bias, nn.Parameter) and "" not in vars(seq)


# Found running PyTorch's test_stateless.py against the engine (test_circular_references,
# test_reparametrize_special, test_setattr); each expected value is what torch 2.13 answers.

class _Affine(nn.Module):
    """y = l1(x) + buffer, with a float attribute ``foo`` beside the tensors (test_stateless's MockModule)."""

    def __init__(self) -> None:
        super().__init__()
        self.l1 = nn.Linear(1, 1, dtype="float64")
        self.register_buffer("buffer", mg.ones(1, dtype="float64"))
        self.foo = 0.0

    def forward(self, x):
        return self.l1(x) + self.buffer


IDENTITY = {"l1.bias": mg.tensor([0.0], dtype="float64"), "buffer": mg.tensor([0.0], dtype="float64")}


def test_a_module_that_holds_itself_runs_without_tie_weights_or_strict():
    # Before, functional_call walked every path of the module tree on each call, and a module
    # holding itself (m.l1.m = m) recursed without end; PyTorch walks it only to tie or check names.
    module = _Affine()
    module.l1.m = module
    x = mg.tensor([[0.25]], dtype="float64")
    given = {"l1.m.l1.weight": mg.tensor([[1.0]], dtype="float64"), **IDENTITY}
    assert functional_call(module, given, (x,), tie_weights=False).tolist() == [[0.25]]
    assert functional_call(module, {}, (x,), tie_weights=False).tolist() == module(x).tolist()


def test_a_tensor_for_an_attribute_that_is_not_a_tensor_is_torchs_type_error():
    # Before, {'foo': tensor} replaced the float attribute for the call (and ran); PyTorch refuses it.
    module = _Affine()
    given = {"l1.weight": mg.tensor([[2.0]], dtype="float64"), "foo": mg.tensor([1.0])}
    with pytest.raises(TypeError, match=r"attribute `foo`: 0.0 is not an instance of"):
        functional_call(module, given, (mg.ones(1, 1, dtype="float64"),))
    assert module.foo == 0.0 and module.l1.weight.tolist() != [[2.0]]  # the swap before it was undone


class _Counter(nn.Module):
    def __init__(self, in_place: bool) -> None:
        super().__init__()
        self.register_buffer("count", mg.tensor([0.0]))
        self.in_place = in_place

    def forward(self, x):
        if self.in_place:
            self.count.add_(1)
        else:
            self.count = self.count + 1  # a new tensor at the name
        return x + self.count


@pytest.mark.parametrize("in_place", [False, True])
def test_the_callers_dict_gets_what_forward_left_at_its_names(in_place):
    # Before, a forward that rebinds a buffer lost the new value: the dict kept the old tensor.
    # torch: a == {'count': tensor([3.])} after the call in both cases; the module keeps [0.].
    module, given = _Counter(in_place), mg.tensor([2.0])
    a = {"count": given}
    assert functional_call(module, a, (mg.zeros(1),)).tolist() == [3.0]
    assert a["count"].tolist() == [3.0] and module.count.tolist() == [0.0]
    assert (a["count"] is given) == in_place and given.tolist() == ([3.0] if in_place else [2.0])
    # several dicts are merged into one the caller never sees: they keep what they held, as PyTorch's
    b = {"count": mg.tensor([2.0])}
    functional_call(module, (b, {}), (mg.zeros(1),))
    assert b["count"].tolist() == ([3.0] if in_place else [2.0])


def test_a_rebound_buffer_reaches_the_dict_under_grad_and_vmap():
    module = _Counter(False)

    def run(count, x):
        a = {"count": count}
        out = functional_call(module, a, (x,))
        return out.sum() + a["count"].sum()

    g = mg.func.grad(run)(mg.tensor([2.0]), mg.tensor([1.0]))
    assert g.tolist() == [2.0]  # d/dc [(x + c + 1) + (c + 1)]
    v = mg.func.vmap(run)(mg.tensor([[2.0], [5.0]]), mg.tensor([[1.0], [1.0]]))
    assert v.tolist() == [7.0, 13.0]


def test_under_vmap_a_dict_the_function_closes_over_is_the_same_for_every_example():
    # vmap runs its function once per example here: writing the rebound buffer back into a dict
    # made outside it would hand example k the count k + 1 ([3, 4, 5]); torch 2.13's answer is
    # [3, 3, 3] (its one batched call).  The dict keeps what it held (torch's holds [3.] after).
    module, a = _Counter(False), {"count": mg.tensor([2.0])}
    out = mg.func.vmap(lambda x: functional_call(module, a, (x,)))(mg.zeros(3, 1))
    assert out.flatten().tolist() == [3.0, 3.0, 3.0] and a["count"].tolist() == [2.0]
