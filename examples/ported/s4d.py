"""S4D, the diagonal state-space layer (state-spaces/s4's ``models/s4/s4d.py`` and its ``example.py``:
the kernel from a complex diagonal ``A = -exp(log_A_real) + 1j * A_imag``, ``C`` kept as
``view_as_real`` of a complex tensor, ``exp`` of complex, the real part of a complex ``einsum``, the
convolution by ``fft.rfft``/``irfft`` with ``n=2L``; the SSM parameters registered with an ``_optim``
attribute that ``setup_optimizer`` turns into AdamW param groups without weight decay (and their own
lr); CosineAnnealingLR); ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/s4d.py --double

Made small: a 2-layer S4 model of width 8, state size 8, on NumPy-made sequences of length 16 (the
example's sequential CIFAR), a few steps; dropout 0 (the example's ``DropoutNd`` is ``nn.Identity``
there).  ``einops.repeat`` is written with ``Tensor.repeat``.  The history records each step's loss,
the learning rates of each group, and two sums of each parameter's gradient.
"""

import argparse
import math

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.optim as optim


class S4DKernel(nn.Module):
    """Generate convolution kernel from diagonal SSM parameters."""

    def __init__(self, d_model, N=64, dt_min=0.001, dt_max=0.1, lr=None):
        super().__init__()
        # Generate dt
        H = d_model
        log_dt = mg.rand(H) * (
            math.log(dt_max) - math.log(dt_min)
        ) + math.log(dt_min)

        C = mg.randn(H, N // 2, dtype=mg.cfloat)
        self.C = nn.Parameter(mg.view_as_real(C))
        self.register("log_dt", log_dt, lr)

        log_A_real = mg.log(0.5 * mg.ones(H, N // 2))
        A_imag = math.pi * mg.arange(N // 2).repeat(H, 1)  # (einops.repeat(..., 'n -> h n', h=H))
        self.register("log_A_real", log_A_real, lr)
        self.register("A_imag", A_imag, lr)

    def forward(self, L):
        """
        returns: (..., c, L) where c is number of channels (default 1)
        """

        # Materialize parameters
        dt = mg.exp(self.log_dt)  # (H)
        C = mg.view_as_complex(self.C)  # (H N)
        A = -mg.exp(self.log_A_real) + 1j * self.A_imag  # (H N)

        # Vandermonde multiplication
        dtA = A * dt.unsqueeze(-1)  # (H N)
        K = dtA.unsqueeze(-1) * mg.arange(L, device=A.device)  # (H N L)
        C = C * (mg.exp(dtA) - 1.) / A
        K = 2 * mg.einsum('hn, hnl -> hl', C, mg.exp(K)).real

        return K

    def register(self, name, tensor, lr=None):
        """Register a tensor with a configurable learning rate and 0 weight decay"""

        if lr == 0.0:
            self.register_buffer(name, tensor)
        else:
            self.register_parameter(name, nn.Parameter(tensor))

            optim = {"weight_decay": 0.0}
            if lr is not None:
                optim["lr"] = lr
            setattr(getattr(self, name), "_optim", optim)


class S4D(nn.Module):
    def __init__(self, d_model, d_state=64, dropout=0.0, transposed=True, **kernel_args):
        super().__init__()

        self.h = d_model
        self.n = d_state
        self.d_output = self.h
        self.transposed = transposed

        self.D = nn.Parameter(mg.randn(self.h))

        # SSM Kernel
        self.kernel = S4DKernel(self.h, N=self.n, **kernel_args)

        # Pointwise
        self.activation = nn.GELU()
        self.dropout = nn.Identity()

        # position-wise output transform to mix features
        self.output_linear = nn.Sequential(
            nn.Conv1d(self.h, 2 * self.h, kernel_size=1),
            nn.GLU(dim=-2),
        )

    def forward(self, u, **kwargs):  # absorbs return_output and transformer src mask
        """ Input and output shape (B, H, L) """
        if not self.transposed:
            u = u.transpose(-1, -2)
        L = u.size(-1)

        # Compute SSM Kernel
        k = self.kernel(L=L)  # (H L)

        # Convolution
        k_f = mg.fft.rfft(k, n=2 * L)  # (H L)
        u_f = mg.fft.rfft(u, n=2 * L)  # (B H L)
        y = mg.fft.irfft(u_f * k_f, n=2 * L)[..., :L]  # (B H L)

        # Compute D term in state space equation - essentially a skip connection
        y = y + u * self.D.unsqueeze(-1)

        y = self.dropout(self.activation(y))
        y = self.output_linear(y)
        if not self.transposed:
            y = y.transpose(-1, -2)
        return y, None  # Return a dummy state to satisfy this repo's interface, but this can be modified


class S4Model(nn.Module):
    def __init__(self, d_input, d_output=10, d_model=256, n_layers=4, dropout=0.2, prenorm=False, lr=0.001):
        super().__init__()

        self.prenorm = prenorm

        # Linear encoder (d_input = 1 for grayscale and 3 for RGB)
        self.encoder = nn.Linear(d_input, d_model)

        # Stack S4 layers as residual blocks
        self.s4_layers = nn.ModuleList()
        self.norms = nn.ModuleList()
        self.dropouts = nn.ModuleList()
        for _ in range(n_layers):
            self.s4_layers.append(
                S4D(d_model, d_state=8, dropout=dropout, transposed=True, lr=lr)
            )
            self.norms.append(nn.LayerNorm(d_model))
            self.dropouts.append(nn.Identity())

        # Linear decoder
        self.decoder = nn.Linear(d_model, d_output)

    def forward(self, x):
        """
        Input x is shape (B, L, d_input)
        """
        x = self.encoder(x)  # (B, L, d_input) -> (B, L, d_model)

        x = x.transpose(-1, -2)  # (B, L, d_model) -> (B, d_model, L)
        for layer, norm, dropout in zip(self.s4_layers, self.norms, self.dropouts):
            # Each iteration of this loop will map (B, d_model, L) -> (B, d_model, L)

            z = x
            if self.prenorm:
                # Prenorm
                z = norm(z.transpose(-1, -2)).transpose(-1, -2)

            # Apply S4 block: we ignore the state input and output
            z, _ = layer(z)

            # Dropout on the output of the S4 block
            z = dropout(z)

            # Residual connection
            x = z + x

            if not self.prenorm:
                # Postnorm
                x = norm(x.transpose(-1, -2)).transpose(-1, -2)

        x = x.transpose(-1, -2)

        # Pooling: average pooling over the sequence length
        x = x.mean(dim=1)

        # Decode the outputs
        x = self.decoder(x)  # (B, d_model) -> (B, d_output)

        return x


def setup_optimizer(model, lr, weight_decay, epochs):
    """
    S4 requires a specific optimizer setup.

    The S4 layer (A, B, C, dt) parameters typically
    require a smaller learning rate (typically 0.001), with no weight decay.

    The rest of the model can be trained with a higher learning rate (e.g. 0.004, 0.01)
    and weight decay (if desired).
    """

    # All parameters in the model
    all_parameters = list(model.parameters())

    # General parameters don't contain the special _optim key
    params = [p for p in all_parameters if not hasattr(p, "_optim")]

    # Create an optimizer with the general parameters
    optimizer = optim.AdamW(params, lr=lr, weight_decay=weight_decay)

    # Add parameters with special hyperparameters
    hps = [getattr(p, "_optim") for p in all_parameters if hasattr(p, "_optim")]
    hps = [
        dict(s) for s in sorted(list(dict.fromkeys(frozenset(hp.items()) for hp in hps)))
    ]  # Unique dicts
    for hp in hps:
        params = [p for p in all_parameters if getattr(p, "_optim", None) == hp]
        optimizer.add_param_group(
            {"params": params, **hp}
        )

    # Create a lr scheduler
    scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, epochs)

    return optimizer, scheduler


def sequences(n, length, rng):
    """Two classes of noisy sequences: a slow and a fast sine, 3 channels (the example's sCIFAR)."""
    labels = rng.integers(0, 2, n)
    t = np.arange(length) / length
    freq = np.where(labels == 0, 1.0, 3.0)[:, None, None]
    phase = rng.uniform(0, 2 * np.pi, (n, 1, 3))
    x = np.sin(2 * np.pi * freq * t[None, :, None] + phase) + 0.3 * rng.standard_normal((n, length, 3))
    return x, labels


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='S4D')
    parser.add_argument('--steps', type=int, default=4)
    parser.add_argument('--batch-size', type=int, default=4)
    parser.add_argument('--prenorm', action='store_true')
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    rng = np.random.default_rng(0)
    data, labels = sequences(args.steps * args.batch_size, 16, rng)
    x_all, y_all = mg.from_numpy(data).to(dtype), mg.from_numpy(labels)
    model = S4Model(3, d_output=2, d_model=8, n_layers=2, dropout=0.0, prenorm=args.prenorm).to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    criterion = nn.CrossEntropyLoss()
    optimizer, scheduler = setup_optimizer(model, lr=0.01, weight_decay=0.05, epochs=args.steps)
    history = [len(optimizer.param_groups)] + [len(g['params']) for g in optimizer.param_groups]
    model.train()
    for step in range(args.steps):
        inputs = x_all[step * args.batch_size:(step + 1) * args.batch_size]
        targets = y_all[step * args.batch_size:(step + 1) * args.batch_size]
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        scheduler.step()
        history.append(loss.item())
        history.extend(group['lr'] for group in optimizer.param_groups)
        for p in model.parameters():
            history.extend([p.grad.sum().item(), p.grad.abs().sum().item()])
    return history, model


if __name__ == '__main__':
    print(main()[0][:4])
