"""The PyTorch tutorial ``polynomial_custom_function.py`` (pytorch/tutorials,
``beginner_source/examples_autograd``), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/polynomial_custom_function.py

Fits ``y = a + b * P3(c + d * x)`` to ``sin(x)``, where ``P3`` is the Legendre polynomial of
degree 3 written as a custom autograd function (``mg.autograd.Function``) with its own
backward.  The lines that differ from the original are listed in ``examples/ported/README.md``
(only the import and a ``main()`` around the script, so that a test can run it).
"""

import math

import minigrad_ckpt as mg


class LegendrePolynomial3(mg.autograd.Function):
    """
    We can implement our own custom autograd Functions by subclassing
    mg.autograd.Function and implementing the forward and backward passes
    which operate on Tensors.
    """

    @staticmethod
    def forward(ctx, input):
        """
        In the forward pass we receive a Tensor containing the input and return
        a Tensor containing the output. ctx is a context object that can be used
        to stash information for backward computation. You can cache arbitrary
        objects for use in the backward pass using the ctx.save_for_backward method.
        """
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        """
        In the backward pass we receive a Tensor containing the gradient of the loss
        with respect to the output, and we need to compute the gradient of the loss
        with respect to the input.
        """
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


def main(steps=2000):
    dtype = mg.float
    device = mg.device("cpu")
    # device = mg.device("cuda:0")  # Uncomment this to run on GPU

    # Create Tensors to hold input and outputs.
    # By default, requires_grad=False, which indicates that we do not need to
    # compute gradients with respect to these Tensors during the backward pass.
    x = mg.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
    y = mg.sin(x)

    # Create random Tensors for weights. For this example, we need
    # 4 weights: y = a + b * P3(c + d * x), these weights need to be initialized
    # not too far from the correct result to ensure convergence.
    # Setting requires_grad=True indicates that we want to compute gradients with
    # respect to these Tensors during the backward pass.
    a = mg.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
    b = mg.full((), -1.0, device=device, dtype=dtype, requires_grad=True)
    c = mg.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
    d = mg.full((), 0.3, device=device, dtype=dtype, requires_grad=True)

    losses = []
    learning_rate = 5e-6
    for t in range(steps):
        # To apply our Function, we use Function.apply method. We alias this as 'P3'.
        P3 = LegendrePolynomial3.apply

        # Forward pass: compute predicted y using operations; we compute
        # P3 using our custom autograd operation.
        y_pred = a + b * P3(c + d * x)

        # Compute and print loss
        loss = (y_pred - y).pow(2).sum()
        if t % 100 == 99:
            print(t, loss.item())
            losses.append(loss.item())

        # Use autograd to compute the backward pass.
        loss.backward()

        # Update weights using gradient descent
        with mg.no_grad():
            a -= learning_rate * a.grad
            b -= learning_rate * b.grad
            c -= learning_rate * c.grad
            d -= learning_rate * d.grad

            # Manually zero the gradients after updating weights
            a.grad = None
            b.grad = None
            c.grad = None
            d.grad = None

    print(f'Result: y = {a.item()} + {b.item()} * P3({c.item()} + {d.item()} x)')
    return losses, [a.item(), b.item(), c.item(), d.item()]


if __name__ == '__main__':
    main()
