"""PyTorch's "Parametrizations" tutorial (pytorch/tutorials ``intermediate_source/parametrizations.py``),
ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/parametrizations.py

``nn.utils.parametrize``: a symmetric ``Linear`` by hand and by ``register_parametrization``, a
skew-symmetric ``Conv2d``, the ``ParametrizationList`` (``layer.parametrizations.weight``, its
``original``, indexing), ``parametrize.cached()``, chains (``Skew`` then ``CayleyMap`` or
``MatrixExponential``: orthogonal; ``Symmetric`` then ``MatrixExponential``: positive definite),
``right_inverse`` on assignment (``layer.weight = X``, through a chain too), a pruning mask, and
``remove_parametrizations`` with and without ``leave_parametrized``.  Made small and deterministic: the
tutorial's ``torch.rand`` / ``rand_like`` / ``bernoulli`` / ``nn.init.orthogonal_`` draws come from
``rand``, ``bernoulli_mask`` and ``orthogonal`` here (a fixed formula, the same under both engines), the
layers' starting weights from the test hook; and, not in the tutorial, ``--steps`` SGD steps train the
orthogonal (Cayley) and the positive definite layers, under ``cached()``.  The tutorial's prints are
kept in ``log``; the numbers they show are ``main``'s history.  The lines that differ from the tutorial
are listed in ``README.md``.
"""

import argparse

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.utils.parametrize as parametrize

log = []
history = []
DTYPE = [mg.float32]


def show(*args):
    log.append(" ".join(str(a) for a in args))


def record(*values):
    history.extend(float(v) for v in values)


def rand(*shape):
    """The tutorial's ``torch.rand``: values in [0, 1) from a fixed formula."""
    n = 1
    for s in shape:
        n *= s
    start = len(history) + 1
    return (mg.arange(start, start + n, dtype=DTYPE[0]).reshape(*shape) * 0.7548776662).sin().abs()


def bernoulli_mask(p):
    """The tutorial's ``torch.bernoulli(p)``: 1 where ``rand`` falls below ``p``."""
    return (rand(*p.shape) < p).to(p.dtype)


def orthogonal(n):
    """The tutorial's ``nn.init.orthogonal_`` of an n x n matrix: Q of ``rand``'s QR."""
    q, r = mg.linalg.qr(rand(n, n) - 0.5)
    return q * r.diagonal().sign()


def symmetric(X):
    return X.triu() + X.triu(1).transpose(-1, -2)


class LinearSymmetric(nn.Module):
    def __init__(self, n_features):
        super().__init__()
        self.weight = nn.Parameter(rand(n_features, n_features))

    def forward(self, x):
        A = symmetric(self.weight)
        return x @ A


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)

    def right_inverse(self, A):
        # We assume that A is skew-symmetric
        # We take the upper-triangular elements, as these are those used in the forward
        return A.triu(1)


class NoisyParametrization(nn.Module):
    def forward(self, X):
        show("Computing the Parametrization")
        return X


class CayleyMap(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("Id", mg.eye(n, dtype=DTYPE[0]))

    def forward(self, X):
        # (I + X)(I - X)^{-1}
        return mg.linalg.solve(self.Id - X, self.Id + X)

    def right_inverse(self, A):
        # (A - I)(A + I)^{-1}
        return mg.linalg.solve(A + self.Id, self.Id - A)


class MatrixExponential(nn.Module):
    def forward(self, X):
        return mg.matrix_exp(X)


class PruningParametrization(nn.Module):
    def __init__(self, X, p_drop=0.2):
        super().__init__()
        # sample zeros with probability p_drop
        mask = mg.full_like(X, 1.0 - p_drop)
        self.mask = bernoulli_mask(mask)

    def forward(self, X):
        return X * self.mask

    def right_inverse(self, A):
        return A


def linear(key, init, n_in=3, n_out=3):
    layer = nn.Linear(n_in, n_out).to(DTYPE[0])
    if init is not None:  # a test hook: records or loads the starting weights
        init(key, layer)
    return layer


def first_part(init):
    X = rand(3, 3)
    A = symmetric(X)
    assert mg.allclose(A, A.T)  # A is symmetric
    record(A.sum())
    layer = LinearSymmetric(3)
    out = layer(rand(8, 3))
    record(out.sum())

    layer = linear("symmetric", init)
    parametrize.register_parametrization(layer, "weight", Symmetric())
    A = layer.weight
    assert mg.allclose(A, A.T)  # A is symmetric
    record(A.sum(), (A * A).sum())

    cnn = nn.Conv2d(in_channels=5, out_channels=8, kernel_size=3).to(DTYPE[0])
    if init is not None:
        init("cnn", cnn)
    parametrize.register_parametrization(cnn, "weight", Skew())
    record(cnn.weight[0, 1].sum(), cnn.weight[2, 2].abs().sum(), (cnn.weight + cnn.weight.transpose(-1, -2)).abs().max())

    layer = linear("twice", init)
    show(f"Unparametrized:\n{layer}")
    parametrize.register_parametrization(layer, "weight", Symmetric())
    show(f"\nParametrized:\n{layer}")
    parametrized_weight = layer.parametrizations.weight
    show(parametrized_weight)
    show(parametrized_weight[0])  # indexing
    show(sorted(dict(layer.named_parameters())))
    symmetric_module = Symmetric()
    weight_orig = layer.parametrizations.weight.original
    record(mg.dist(layer.weight, symmetric_module(weight_orig)))
    return cnn


def caching(init):
    layer = linear("noisy", init, 4, 4)
    parametrize.register_parametrization(layer, "weight", NoisyParametrization())
    show("Here, layer.weight is recomputed every time we call it")
    foo = layer.weight + layer.weight.T
    bar = layer.weight.sum()
    with parametrize.cached():
        show("Here, it is computed just the first time layer.weight is called")
        foo = layer.weight + layer.weight.T
        bar = layer.weight.sum()
    record(foo.sum(), bar)


def chains(init):
    eye = mg.eye(3, dtype=DTYPE[0])
    layer = linear("cayley", init)
    parametrize.register_parametrization(layer, "weight", Skew())
    parametrize.register_parametrization(layer, "weight", CayleyMap(3))
    X = layer.weight
    record(mg.dist(X.T @ X, eye) < 1e-5, X.sum())  # X is orthogonal

    layer_orthogonal = linear("expm", init)
    parametrize.register_parametrization(layer_orthogonal, "weight", Skew())
    parametrize.register_parametrization(layer_orthogonal, "weight", MatrixExponential())
    X = layer_orthogonal.weight
    record(mg.dist(X.T @ X, eye) < 1e-5, X.sum())  # X is orthogonal

    layer_spd = linear("spd", init)
    parametrize.register_parametrization(layer_spd, "weight", Symmetric())
    parametrize.register_parametrization(layer_spd, "weight", MatrixExponential())
    X = layer_spd.weight
    record(mg.dist(X, X.T) < 1e-6)                  # X is symmetric
    record((mg.linalg.eigvalsh(X) > 0.).all(), mg.linalg.eigvalsh(X).sum())  # X is positive definite
    return layer_spd


def initializing(init):
    layer = linear("skew", init)
    parametrize.register_parametrization(layer, "weight", Skew())
    X = rand(3, 3)
    X = X - X.T                             # X is now skew-symmetric
    layer.weight = X                        # Initialize layer.weight to be X
    record(mg.dist(layer.weight, X))        # layer.weight == X

    layer_orthogonal = linear("cayley_init", init)
    parametrize.register_parametrization(layer_orthogonal, "weight", Skew())
    parametrize.register_parametrization(layer_orthogonal, "weight", CayleyMap(3))
    # Sample an orthogonal matrix with positive determinant
    X = orthogonal(3)
    if X.det() < 0.:
        X[0].neg_()
    layer_orthogonal.weight = X
    record(mg.dist(layer_orthogonal.weight, X) < 1e-5)  # layer_orthogonal.weight == X

    layer = linear("pruned", init, 3, 4)
    X = rand(*layer.weight.shape)
    parametrize.register_parametrization(layer, "weight", PruningParametrization(layer.weight))
    layer.weight = X
    record(layer.weight.sum(), (layer.weight == 0).sum())
    return layer_orthogonal


def removing(init):
    for leave in (True, False):
        layer = linear(f"remove_{leave}", init)
        show("Before:")
        show(layer)
        before = layer.weight.detach().clone()
        parametrize.register_parametrization(layer, "weight", Skew())
        show("\nParametrized:")
        show(layer)
        skew = layer.weight.detach().clone()
        parametrize.remove_parametrizations(layer, "weight", leave_parametrized=leave)
        show("\nAfter:")
        show(layer)
        record(mg.dist(layer.weight, skew if leave else before), type(layer.weight).__name__ == "Parameter")


def train(layers, steps):
    # (not in the tutorial) SGD on the orthogonal and the positive definite layers, under cached()
    params = [p for layer in layers for p in layer.parameters()]
    optimizer = mg.optim.SGD(params, lr=0.1, momentum=0.9)
    x = rand(6, 3) - 0.5
    target = rand(6, 3)
    for _ in range(steps):
        optimizer.zero_grad()
        with parametrize.cached():
            y = x
            for layer in layers:
                y = layer(y).tanh()
            loss = ((y - target) ** 2).mean()
        loss.backward()
        optimizer.step()
        record(loss)
    X = layers[0].weight
    record(mg.dist(X.T @ X, mg.eye(3, dtype=DTYPE[0])) < 1e-5)  # still orthogonal


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="parametrizations")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    DTYPE[0] = mg.float64 if args.double else mg.float32
    log.clear()
    history.clear()
    cnn = first_part(init)
    caching(init)
    layer_spd = chains(init)
    layer_orthogonal = initializing(init)
    removing(init)
    train([layer_orthogonal, layer_spd], args.steps)
    for line in log:
        print(line)
    return list(history), (layer_orthogonal, layer_spd, cnn)


if __name__ == "__main__":
    main()
