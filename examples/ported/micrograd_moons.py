"""micrograd's ``demo.ipynb`` (a 2-16-16-1 MLP of scalar values on the moons data set, SVM
max-margin loss, hand-written SGD), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/micrograd_moons.py --steps 100

micrograd's ``Value`` is a scalar that records its history; a 0-d float64 ``mg.tensor`` that
requires grad is the same thing, so ``Value(x)`` becomes ``mg.tensor(x, ...)`` and the rest
of the program (``micrograd.nn``'s ``Neuron``/``Layer``/``MLP`` and the training loop, with
``p.data -= learning_rate * p.grad``) is the original.  ``examples/ported/README.md`` lists every
changed line.
"""

import argparse
import random

import numpy as np

import minigrad_ckpt as mg
from local_data import make_moons


def Value(x):
    return mg.tensor(x, dtype=mg.double, requires_grad=True)


# ---- micrograd/nn.py
class Module:

    def zero_grad(self):
        for p in self.parameters():
            p.grad = None

    def parameters(self):
        return []


class Neuron(Module):

    def __init__(self, nin, nonlin=True):
        self.w = [Value(random.uniform(-1,1)) for _ in range(nin)]
        self.b = Value(0)
        self.nonlin = nonlin

    def __call__(self, x):
        act = sum((wi*xi for wi,xi in zip(self.w, x)), self.b)
        return act.relu() if self.nonlin else act

    def parameters(self):
        return self.w + [self.b]


class Layer(Module):

    def __init__(self, nin, nout, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out

    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]


class MLP(Module):

    def __init__(self, nin, nouts):
        sz = [nin] + nouts
        self.layers = [Layer(sz[i], sz[i+1], nonlin=i!=len(nouts)-1) for i in range(len(nouts))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


# ---- demo.ipynb
def loss(model, X, y, batch_size=None):
    # inline DataLoader :)
    if batch_size is None:
        Xb, yb = X, y
    else:
        ri = np.random.permutation(X.shape[0])[:batch_size]
        Xb, yb = X[ri], y[ri]
    inputs = [list(map(Value, xrow)) for xrow in Xb]

    # forward the model to get scores
    scores = list(map(model, inputs))

    # svm "max-margin" loss
    losses = [(1 + -yi*scorei).relu() for yi, scorei in zip(yb, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    # L2 regularization
    alpha = 1e-4
    reg_loss = alpha * sum((p*p for p in model.parameters()))
    total_loss = data_loss + reg_loss

    # also get accuracy
    accuracy = [(yi > 0) == (scorei.data > 0) for yi, scorei in zip(yb, scores)]
    return total_loss, sum(accuracy) / len(accuracy)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--steps', type=int, default=100)
    args = parser.parse_args(argv)
    np.random.seed(1337)
    random.seed(1337)
    X, y = make_moons(n_samples=100, noise=0.1)
    y = y*2 - 1  # make y be -1 or 1
    model = MLP(2, [16, 16, 1])  # 2-layer neural network
    history = []
    for k in range(args.steps):
        # forward
        total_loss, acc = loss(model, X, y)

        # backward
        model.zero_grad()
        total_loss.backward()

        # update (sgd)
        learning_rate = 1.0 - 0.9*k/100
        for p in model.parameters():
            p.data -= learning_rate * p.grad

        if k % 1 == 0:
            print(f"step {k} loss {total_loss.data}, accuracy {acc*100}%")
        history.append(total_loss.item())
    return history


if __name__ == '__main__':
    main()
