"""A Fourier Neural Operator (Li et al., neuraloperator's ``fourier_2d.py``: ``SpectralConv2d`` with
complex weights as ``nn.Parameter`` of ``torch.cfloat``, ``torch.fft.rfft2``/``irfft2``, the complex
``einsum`` of the kept modes, a 1x1 ``Conv2d`` beside each spectral layer, GELU, the relative L2
loss ``LpLoss``; Adam on the complex and real parameters with weight decay, StepLR); ported to
minigrad_ckpt by a mechanical rename.

    python examples/ported/fno.py --double

Made small: width 8, 4x3 modes, 12x12 grids of a NumPy-made smooth field to a smoothed copy of
it (Darcy flow's coefficient-to-solution pairs), a few Adam steps.  ``--double``: the model and
the data in float64 (complex128 weights); the original's ``dtype=torch.cfloat`` in ``out_ft`` is
the input's complex dtype so the float64 run stays float64, and the model is built under
``set_default_dtype(float64)`` (complex128 weights) rather than cast by ``model.to(float64)``, which
in PyTorch would drop the complex weights' imaginary parts.  The history records each step's loss
and, per parameter, two sums of its gradient (of the real and imaginary parts for a complex one).
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F


class SpectralConv2d(nn.Module):
    def __init__(self, in_channels, out_channels, modes1, modes2):
        super(SpectralConv2d, self).__init__()
        # 2D Fourier layer. It does FFT, linear transform, and Inverse FFT.
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.modes1 = modes1  # Number of Fourier modes to multiply, at most floor(N/2) + 1
        self.modes2 = modes2

        self.scale = (1 / (in_channels * out_channels))
        cfloat = mg.cdouble if mg.get_default_dtype() == mg.float64 else mg.cfloat  # (the original: cfloat)
        self.weights1 = nn.Parameter(
            self.scale * mg.rand(in_channels, out_channels, self.modes1, self.modes2, dtype=cfloat))
        self.weights2 = nn.Parameter(
            self.scale * mg.rand(in_channels, out_channels, self.modes1, self.modes2, dtype=cfloat))

    # Complex multiplication
    def compl_mul2d(self, input, weights):
        # (batch, in_channel, x,y ), (in_channel, out_channel, x,y) -> (batch, out_channel, x,y)
        return mg.einsum("bixy,ioxy->boxy", input, weights)

    def forward(self, x):
        batchsize = x.shape[0]
        # Compute Fourier coeffcients up to factor of e^(- something constant)
        x_ft = mg.fft.rfft2(x)

        # Multiply relevant Fourier modes
        out_ft = mg.zeros(batchsize, self.out_channels, x.size(-2), x.size(-1) // 2 + 1, dtype=x_ft.dtype,
                          device=x.device)
        out_ft[:, :, :self.modes1, :self.modes2] = \
            self.compl_mul2d(x_ft[:, :, :self.modes1, :self.modes2], self.weights1)
        out_ft[:, :, -self.modes1:, :self.modes2] = \
            self.compl_mul2d(x_ft[:, :, -self.modes1:, :self.modes2], self.weights2)

        # Return to physical space
        x = mg.fft.irfft2(out_ft, s=(x.size(-2), x.size(-1)))
        return x


class FNO2d(nn.Module):
    def __init__(self, modes1, modes2, width):
        super(FNO2d, self).__init__()
        self.modes1 = modes1
        self.modes2 = modes2
        self.width = width
        self.padding = 3  # pad the domain if input is non-periodic
        self.fc0 = nn.Linear(3, self.width)  # input channel is 3: (a(x, y), x, y)

        self.conv0 = SpectralConv2d(self.width, self.width, self.modes1, self.modes2)
        self.conv1 = SpectralConv2d(self.width, self.width, self.modes1, self.modes2)
        self.w0 = nn.Conv2d(self.width, self.width, 1)
        self.w1 = nn.Conv2d(self.width, self.width, 1)

        self.fc1 = nn.Linear(self.width, 16)
        self.fc2 = nn.Linear(16, 1)

    def forward(self, x):
        grid = self.get_grid(x.shape, x.device, x.dtype)
        x = mg.cat((x, grid), dim=-1)
        x = self.fc0(x)
        x = x.permute(0, 3, 1, 2)
        x = F.pad(x, [0, self.padding, 0, self.padding])

        x1 = self.conv0(x)
        x2 = self.w0(x)
        x = x1 + x2
        x = F.gelu(x)

        x1 = self.conv1(x)
        x2 = self.w1(x)
        x = x1 + x2

        x = x[..., :-self.padding, :-self.padding]
        x = x.permute(0, 2, 3, 1)
        x = self.fc1(x)
        x = F.gelu(x)
        x = self.fc2(x)
        return x

    def get_grid(self, shape, device, dtype):
        batchsize, size_x, size_y = shape[0], shape[1], shape[2]
        gridx = mg.tensor(np.linspace(0, 1, size_x), dtype=dtype)
        gridx = gridx.reshape(1, size_x, 1, 1).repeat([batchsize, 1, size_y, 1])
        gridy = mg.tensor(np.linspace(0, 1, size_y), dtype=dtype)
        gridy = gridy.reshape(1, 1, size_y, 1).repeat([batchsize, size_x, 1, 1])
        return mg.cat((gridx, gridy), dim=-1).to(device)


class LpLoss(object):
    # loss function with rel/abs Lp loss
    def __init__(self, d=2, p=2, size_average=True, reduction=True):
        super(LpLoss, self).__init__()
        self.d = d
        self.p = p
        self.reduction = reduction
        self.size_average = size_average

    def rel(self, x, y):
        num_examples = x.size()[0]
        diff_norms = mg.norm(x.reshape(num_examples, -1) - y.reshape(num_examples, -1), self.p, 1)
        y_norms = mg.norm(y.reshape(num_examples, -1), self.p, 1)
        if self.reduction:
            if self.size_average:
                return mg.mean(diff_norms / y_norms)
            else:
                return mg.sum(diff_norms / y_norms)
        return diff_norms / y_norms

    def __call__(self, x, y):
        return self.rel(x, y)


def fields(n, s, rng):
    """Smooth random coefficient fields ``a`` and their blurred, squared copies ``u`` (n, s, s, 1)."""
    k = np.arange(s)
    basis = np.cos(np.pi * np.outer(k, np.arange(4)) / s)
    coef = rng.standard_normal((n, 4, 4))
    a = np.einsum('xi,nij,yj->nxy', basis, coef, basis)
    u = 0.5 * (a + np.roll(a, 1, 1) + np.roll(a, 1, 2)) ** 2 / 4 + 0.1
    return a[..., None], u[..., None]


def grad_sums(model):
    sums = []
    for p in model.parameters():
        g = mg.view_as_real(p.grad) if p.grad.is_complex() else p.grad
        sums.extend([g.sum().item(), g.abs().sum().item()])
    return sums


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='Fourier Neural Operator (2d)')
    parser.add_argument('--steps', type=int, default=4)
    parser.add_argument('--batch-size', type=int, default=3)
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    rng = np.random.default_rng(0)
    a, u = fields(args.steps * args.batch_size, 12, rng)
    x_all, y_all = mg.from_numpy(a).to(dtype), mg.from_numpy(u).to(dtype)
    # Not model.to(dtype): PyTorch's casts a complex weight to a real dtype (dropping its imaginary part)
    default = mg.get_default_dtype()
    mg.set_default_dtype(dtype)
    try:
        model = FNO2d(4, 3, 8)
    finally:
        mg.set_default_dtype(default)
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    optimizer = mg.optim.Adam(model.parameters(), lr=1e-2, weight_decay=1e-4)
    scheduler = mg.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    myloss = LpLoss(size_average=False)
    history = []
    model.train()
    for step in range(args.steps):
        x = x_all[step * args.batch_size:(step + 1) * args.batch_size]
        y = y_all[step * args.batch_size:(step + 1) * args.batch_size]
        optimizer.zero_grad()
        out = model(x).reshape(args.batch_size, 12, 12)
        loss = myloss(out.view(args.batch_size, -1), y.view(args.batch_size, -1))
        loss.backward()
        history.append(loss.item())
        history.extend(grad_sums(model))
        optimizer.step()
        scheduler.step()
    history.append(str(model.conv0.weights1.dtype).endswith('complex128') == args.double)
    return history, model


if __name__ == '__main__':
    print(main()[0][:1])
