"""PyTorch's "Learning PyTorch with Examples" (pytorch/tutorials ``beginner_source/pytorch_with_examples.rst`` and
its ``examples_tensor``, ``examples_autograd``, ``examples_nn`` programs), ported to minigrad_ckpt by a mechanical
rename.

    python examples/ported/learning_pytorch_examples.py

Fitting ``sin(x)`` with a third-order polynomial, six ways: tensors with hand-written gradients
(``polynomial_tensor.py``), autograd (``polynomial_autograd.py``), ``nn.Sequential`` with ``nn.Flatten(0, 1)``
on ``x.unsqueeze(-1).pow(p)`` and updates under ``no_grad`` (``polynomial_nn.py``), ``optim.RMSprop``
(``polynomial_optim.py``), a custom ``nn.Module`` of four ``nn.Parameter(torch.randn(()))``
(``polynomial_module.py``) and the dynamic network that reuses a weight a random number of times
(``dynamic_net.py``, ``random.randint``).  Made small: 200 points (2000), ``--steps`` (40; 2000, 30000 for the
dynamic net), the losses printed every 10 steps (100, 2000); ``polynomial_custom_function.py`` is ported apart.
The prints are kept in ``log``; the losses are ``main``'s history.  The lines that differ are listed in
``README.md``.
"""

import argparse
import math
import random

import minigrad_ckpt as mg

log = []
history = []


def show(*args):
    log.append(" ".join(str(a) for a in args))


def polynomial_tensor(steps, dtype, device):
    # Create random input and output data
    x = mg.linspace(-math.pi, math.pi, 200, device=device, dtype=dtype)
    y = mg.sin(x)

    # Randomly initialize weights
    a = mg.randn((), device=device, dtype=dtype)
    b = mg.randn((), device=device, dtype=dtype)
    c = mg.randn((), device=device, dtype=dtype)
    d = mg.randn((), device=device, dtype=dtype)

    learning_rate = 1e-5
    for t in range(steps):
        # Forward pass: compute predicted y
        y_pred = a + b * x + c * x ** 2 + d * x ** 3

        # Compute and print loss
        loss = (y_pred - y).pow(2).sum().item()
        if t % 10 == 9:
            show(t, loss)
            history.append(loss)

        # Backprop to compute gradients of a, b, c, d with respect to loss
        grad_y_pred = 2.0 * (y_pred - y)
        grad_a = grad_y_pred.sum()
        grad_b = (grad_y_pred * x).sum()
        grad_c = (grad_y_pred * x ** 2).sum()
        grad_d = (grad_y_pred * x ** 3).sum()

        # Update weights using gradient descent
        a -= learning_rate * grad_a
        b -= learning_rate * grad_b
        c -= learning_rate * grad_c
        d -= learning_rate * grad_d

    show(f'Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3')
    history.extend([a.item(), b.item(), c.item(), d.item()])


def polynomial_autograd(steps, dtype, device):
    x = mg.linspace(-math.pi, math.pi, 200, dtype=dtype)
    y = mg.sin(x)

    # Create random Tensors for weights. For a third order polynomial, we need
    # 4 weights: y = a + b x + c x^2 + d x^3
    # Setting requires_grad=True indicates that we want to compute gradients with
    # respect to these Tensors during the backward pass.
    a = mg.randn((), dtype=dtype, requires_grad=True)
    b = mg.randn((), dtype=dtype, requires_grad=True)
    c = mg.randn((), dtype=dtype, requires_grad=True)
    d = mg.randn((), dtype=dtype, requires_grad=True)

    learning_rate = 1e-5
    for t in range(steps):
        # Forward pass: compute predicted y using operations on Tensors.
        y_pred = a + b * x + c * x ** 2 + d * x ** 3

        # Compute and print loss using operations on Tensors.
        # Now loss is a Tensor of shape (1,)
        # loss.item() gets the scalar value held in the loss.
        loss = (y_pred - y).pow(2).sum()
        if t % 10 == 9:
            show(t, loss.item())
            history.append(loss.item())

        # Use autograd to compute the backward pass. This call will compute the
        # gradient of loss with respect to all Tensors with requires_grad=True.
        # After this call a.grad, b.grad. c.grad and d.grad will be Tensors holding
        # the gradient of the loss with respect to a, b, c, d respectively.
        loss.backward()

        # Manually update weights using gradient descent. Wrap in torch.no_grad()
        # because weights have requires_grad=True, but we don't need to track this
        # in autograd.
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

    show(f'Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3')
    history.extend([a.item(), b.item(), c.item(), d.item()])


def polynomial_nn(steps, dtype, init, optimizer_name=None):
    # Create Tensors to hold input and outputs.
    x = mg.linspace(-math.pi, math.pi, 200, dtype=dtype)
    y = mg.sin(x)

    # For this example, the output y is a linear function of (x, x^2, x^3), so
    # we can consider it as a linear layer neural network. Let's prepare the
    # tensor (x, x^2, x^3).
    p = mg.tensor([1, 2, 3])
    xx = x.unsqueeze(-1).pow(p)

    # Use the nn package to define our model as a sequence of layers.
    model = mg.nn.Sequential(
        mg.nn.Linear(3, 1),
        mg.nn.Flatten(0, 1)
    ).to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init("nn" if optimizer_name is None else "optim", model)

    # The nn package also contains definitions of popular loss functions
    loss_fn = mg.nn.MSELoss(reduction='sum')

    learning_rate = 1e-6 if optimizer_name is None else 1e-3
    optimizer = None if optimizer_name is None else mg.optim.RMSprop(model.parameters(), lr=learning_rate)
    for t in range(steps):
        # Forward pass: compute predicted y by passing x to the model.
        y_pred = model(xx)

        # Compute and print loss.
        loss = loss_fn(y_pred, y)
        if t % 10 == 9:
            show(t, loss.item())
            history.append(loss.item())

        if optimizer is None:
            # Zero the gradients before running the backward pass.
            model.zero_grad()

            # Backward pass: compute gradient of the loss with respect to all the learnable
            # parameters of the model.
            loss.backward()

            # Update the weights using gradient descent.
            with mg.no_grad():
                for param in model.parameters():
                    param -= learning_rate * param.grad
        else:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

    # You can access the first layer of `model` like accessing the first item of a list
    linear_layer = model[0]

    # For linear layer, its parameters are stored as `weight` and `bias`.
    show(f'Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + '
         f'{linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3')
    return model


class Polynomial3(mg.nn.Module):
    def __init__(self):
        """
        In the constructor we instantiate four parameters and assign them as
        member parameters.
        """
        super().__init__()
        self.a = mg.nn.Parameter(mg.randn(()))
        self.b = mg.nn.Parameter(mg.randn(()))
        self.c = mg.nn.Parameter(mg.randn(()))
        self.d = mg.nn.Parameter(mg.randn(()))

    def forward(self, x):
        """
        In the forward function we accept a Tensor of input data and we must return
        a Tensor of output data. We can use Modules defined in the constructor as
        well as arbitrary operators on Tensors.
        """
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        """
        Just like any class in Python, you can also define custom method on PyTorch modules
        """
        return f'y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3'


class DynamicNet(mg.nn.Module):
    def __init__(self):
        """
        In the constructor we instantiate five parameters and assign them as members.
        """
        super().__init__()
        self.a = mg.nn.Parameter(mg.randn(()))
        self.b = mg.nn.Parameter(mg.randn(()))
        self.c = mg.nn.Parameter(mg.randn(()))
        self.d = mg.nn.Parameter(mg.randn(()))
        self.e = mg.nn.Parameter(mg.randn(()))

    def forward(self, x):
        """
        For the forward pass of the model, we randomly choose either 4, 5
        and reuse the e parameter to compute the contribution of these orders.

        Since each forward pass builds a dynamic computation graph, we can use normal
        Python control-flow operators like loops or conditional statements when
        defining the forward pass of the model.

        Here we also see that it is perfectly safe to reuse the same parameter many
        times when defining a computational graph.
        """
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y

    def string(self):
        """
        Just like any class in Python, you can also define custom method on PyTorch modules
        """
        return f'y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3 + {self.e.item()} x^4 ? + {self.e.item()} x^5 ?'


def polynomial_module(steps, dtype, model_class, lr, momentum):
    # Create Tensors to hold input and outputs.
    x = mg.linspace(-math.pi, math.pi, 200, dtype=dtype)
    y = mg.sin(x)

    # Construct our model by instantiating the class defined above
    model = model_class().to(dtype)

    # Construct our loss function and an Optimizer. The call to model.parameters()
    # in the SGD constructor will contain the learnable parameters (defined
    # with torch.nn.Parameter) which are members of the model.
    criterion = mg.nn.MSELoss(reduction='sum')
    optimizer = mg.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    for t in range(steps):
        # Forward pass: Compute predicted y by passing x to the model
        y_pred = model(x)

        # Compute and print loss
        loss = criterion(y_pred, y)
        if t % 10 == 9:
            show(t, loss.item())
            history.append(loss.item())

        # Zero gradients, perform a backward pass, and update the weights.
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    show(f'Result: {model.string()}')
    history.extend(p.item() for p in model.parameters())
    return model


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="learning pytorch with examples")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    log.clear()
    history.clear()
    dtype = mg.float64 if args.double else mg.float
    device = mg.device("cpu")
    random.seed(0)
    polynomial_tensor(args.steps, dtype, device)
    polynomial_autograd(args.steps, dtype, device)
    models = (polynomial_nn(args.steps, dtype, init), polynomial_nn(args.steps, dtype, init, "RMSprop"))
    polynomial_module(args.steps, dtype, Polynomial3, lr=1e-6, momentum=0)
    polynomial_module(args.steps, dtype, DynamicNet, lr=1e-8, momentum=0.9)
    for line in log:
        print(line)
    return list(history), models


if __name__ == "__main__":
    main()
