"""pytorch/examples ``regression/main.py``, ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/regression.py

Fits a degree-4 polynomial with a ``Linear`` layer and hand-written SGD.  The lines that
differ from the original are listed in ``examples/ported/README.md`` (only the import and
a ``__main__`` guard with a batch limit, so tests can import the functions).
"""

from __future__ import print_function

from itertools import count

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F

POLY_DEGREE = 4
W_target = mg.randn(POLY_DEGREE, 1) * 5
b_target = mg.randn(1) * 5


def make_features(x):
    """Builds features i.e. a matrix with columns [x, x^2, x^3, x^4]."""
    x = x.unsqueeze(1)
    return mg.cat([x ** i for i in range(1, POLY_DEGREE+1)], 1)


def f(x):
    """Approximated function."""
    return x.mm(W_target) + b_target.item()


def poly_desc(W, b):
    """Creates a string description of a polynomial."""
    result = 'y = '
    for i, w in enumerate(W):
        result += '{:+.2f} x^{} '.format(w, i + 1)
    result += '{:+.2f}'.format(b[0])
    return result


def get_batch(batch_size=32):
    """Builds a batch i.e. (x, f(x)) pair."""
    random = mg.randn(batch_size)
    x = make_features(random)
    y = f(x)
    return x, y


# Define model
fc = mg.nn.Linear(W_target.size(0), 1)


def main(max_batches=None):
    for batch_idx in count(1):
        # Get data
        batch_x, batch_y = get_batch()

        # Reset gradients
        fc.zero_grad()

        # Forward pass
        output = F.smooth_l1_loss(fc(batch_x), batch_y)
        loss = output.item()

        # Backward pass
        output.backward()

        # Apply gradients
        for param in fc.parameters():
            param.data.add_(-0.1 * param.grad)

        # Stop criterion
        if loss < 1e-3 or batch_idx == max_batches:
            break

    print('Loss: {:.6f} after {} batches'.format(loss, batch_idx))
    print('==> Learned function:\t' + poly_desc(fc.weight.view(-1), fc.bias))
    print('==> Actual function:\t' + poly_desc(W_target.view(-1), b_target))
    return loss, batch_idx


if __name__ == '__main__':
    main()
