"""PyTorch's recipes ported as written (``what_is_state_dict``, ``saving_and_loading_a_general_checkpoint``,
``warmstarting_model_using_parameters_from_a_different_model``, the parametrizations and pruning
tutorials): keys, types, errors and numbers against torch 2.13's, pasted here (computed offline)."""

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.utils.parametrize as P
from minigrad_ckpt.nn.utils import prune

W0 = (np.arange(9, dtype=np.float32).reshape(3, 3) - 4) / 7
X = [[1.0, 2.0, -1.0], [0.5, 0.0, 3.0]]
# torch 2.13: Skew then matrix_exp of W0, and the gradient of |l(X)|^2 in the original (float64 run)
EXP = [[0.8704754127131666, -0.38852597767404085, -0.3021921913853385],
       [0.4283796987578664, 0.900365703526036, 0.07637037125866286],
       [0.24241161183813334, -0.19593153035307304, 0.9501828486452178]]
EXP_GRAD = [[0.0, 0.8048133249035678, -0.01740512360088764], [0.0, 0.0, -2.23331649584107], [0.0, 0.0, 0.0]]
CAYLEY = [[0.5873015743714791, -0.6031745981287071, -0.5396825593930701],
          [0.7301587352046259, 0.6825396771784182, 0.03174603095761044],
          [0.3492063604019304, -0.41269842893988984, 0.8412698286551015]]


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)


class MatrixExponential(nn.Module):
    def forward(self, X):
        return mg.matrix_exp(X)


class CayleyMap(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("Id", mg.eye(n))

    def forward(self, X):
        return mg.linalg.solve(self.Id - X, self.Id + X)


class NetA(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.fc1, self.bn = nn.Conv2d(3, 6, 5), nn.Linear(4, 3), nn.BatchNorm1d(3)


class NetB(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.fc1, self.fc9 = nn.Conv2d(3, 6, 5), nn.Linear(4, 3), nn.Linear(2, 2)


def test_warmstarting_reports_missing_and_unexpected_keys():
    result = NetB().load_state_dict(NetA().state_dict(), strict=False)
    assert repr(result) == ("_IncompatibleKeys(missing_keys=['fc9.weight', 'fc9.bias'], unexpected_keys=['bn.weight', "
                            "'bn.bias', 'bn.running_mean', 'bn.running_var', 'bn.num_batches_tracked'])")
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "fc9.weight", "fc9.bias". \n\t'
                                           'Unexpected key\\(s\\) in state_dict: "bn.weight"'):
        NetB().load_state_dict(NetA().state_dict())
    sd = NetA().state_dict()
    sd["fc1.weight"] = mg.zeros(3, 5)
    with pytest.raises(RuntimeError, match="size mismatch for fc1.weight"):   # strict=False too, as torch
        NetA().load_state_dict(sd, strict=False)


def test_a_general_checkpoint_round_trip(tmp_path):
    net = NetB()
    opt = mg.optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
    net.fc9(mg.ones(1, 2)).sum().backward()
    opt.step()
    mg.save({"epoch": 5, "model_state_dict": net.state_dict(), "optimizer_state_dict": opt.state_dict(),
             "loss": 0.4}, tmp_path / "ck.pt")
    model = NetB()
    o2 = mg.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
    ck = mg.load(tmp_path / "ck.pt", weights_only=True)
    assert tuple(model.load_state_dict(ck["model_state_dict"])) == ([], [])
    o2.load_state_dict(ck["optimizer_state_dict"])
    assert (ck["epoch"], ck["loss"]) == (5, 0.4) and type(ck["loss"]) is float
    assert sorted(o2.state_dict()["state"]) == [4, 5] and list(o2.state_dict()["state"][4]) == ["momentum_buffer"]
    np.testing.assert_array_equal(model.fc9.weight.detach().numpy(), net.fc9.weight.detach().numpy())


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_parametrized_matrix_exp_and_cayley_match_torch(dtype):
    rtol = 1e-6 if dtype == mg.float32 else 1e-12
    layer = nn.Linear(3, 3).to(dtype)
    with mg.no_grad():
        layer.weight.copy_(mg.tensor(W0))
        layer.bias.copy_(mg.tensor([0.1, -0.2, 0.3]))
    P.register_parametrization(layer, "weight", Skew())
    P.register_parametrization(layer, "weight", MatrixExponential())
    assert list(layer.state_dict()) == ["bias", "parametrizations.weight.original"]
    np.testing.assert_allclose(layer.weight.detach().numpy(), EXP, rtol=rtol, atol=rtol)
    layer(mg.tensor(X, dtype=dtype)).pow(2).sum().backward()
    np.testing.assert_allclose(layer.parametrizations.weight.original.grad.numpy(), EXP_GRAD,
                               rtol=10 * rtol, atol=10 * rtol)
    with P.cached():
        assert layer.weight is layer.weight
    cayley = nn.Linear(3, 3).to(dtype)
    with mg.no_grad():
        cayley.weight.copy_(mg.tensor(W0))
    P.register_parametrization(cayley, "weight", Skew())
    P.register_parametrization(cayley, "weight", CayleyMap(3))
    np.testing.assert_allclose(cayley.weight.detach().numpy(), CAYLEY, rtol=rtol, atol=rtol)
    P.remove_parametrizations(cayley, "weight", leave_parametrized=False)
    assert type(cayley).__name__ == "Linear" and list(cayley.state_dict()) == ["bias", "weight"]  # torch: bias first
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        P.remove_parametrizations(cayley, "weight")


def test_global_and_structured_pruning_masks_match_torch():
    a, b = nn.Linear(4, 3), nn.Linear(3, 2)
    with mg.no_grad():
        a.weight.copy_(mg.tensor(np.sin(np.arange(12)).reshape(3, 4).astype(np.float32)))
        b.weight.copy_(mg.tensor(np.cos(np.arange(6)).reshape(2, 3).astype(np.float32)))
    prune.global_unstructured(((a, "weight"), (b, "weight")), pruning_method=prune.L1Unstructured, amount=0.4)
    assert a.weight_mask.int().tolist() == [[0, 1, 1, 0], [1, 1, 0, 1], [1, 0, 1, 1]]
    assert b.weight_mask.int().tolist() == [[1, 0, 0], [1, 1, 0]]
    prune.ln_structured(a, "weight", amount=0.34, n=2, dim=0)
    assert a.weight_mask.int().tolist() == [[0, 0, 0, 0], [1, 1, 0, 1], [1, 0, 1, 1]]
    assert list(a.state_dict()) == ["bias", "weight_orig", "weight_mask"]
    with pytest.raises(ValueError, match="has to be pruned before pruning can be removed"):
        prune.remove(b, "bias")
