"""pytorch/examples ``dcgan/main.py``, ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/dcgan.py --niter 1

A generator of transposed convolutions and a discriminator of strided convolutions, both
with ``BatchNorm2d``, trained against each other: two Adam optimizers with ``betas``, the
fake batch ``.detach()``-ed for the discriminator's step, ``zero_grad(set_to_none=True)``.
Images are 16x16 (the original's 64x64 with one layer less each side) of :mod:`local_data`'s
kind, made here; the lines that differ are listed in ``README.md``.
"""

from __future__ import print_function

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.optim as optim
import minigrad_ckpt.utils.data

nc, nz, ngf, ndf = 1, 8, 8, 8


# custom weights initialization called on netG and netD
def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        mg.nn.init.normal_(m.weight, 0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        mg.nn.init.normal_(m.weight, 1.0, 0.02)
        mg.nn.init.zeros_(m.bias)


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.main = nn.Sequential(
            # input is Z, going into a convolution
            nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(),
            # state size. (ngf*4) x 4 x 4
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(),
            # state size. (ngf*2) x 8 x 8
            nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False),
            nn.Tanh()
            # state size. (nc) x 16 x 16
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(
            # input is (nc) x 16 x 16
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2),
            # state size. (ndf) x 8 x 8
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2),
            # state size. (ndf*2) x 4 x 4
            nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
            # a logit: the loss is BCEWithLogitsLoss (the original: nn.Sigmoid() here and nn.BCELoss)
        )

    def forward(self, input):
        output = self.main(input)
        return output.view(-1, 1).squeeze(1)


def rings(n, seed=0):
    """16x16 rings in [-1, 1] (the images ``transforms.Normalize((0.5,), (0.5,))`` makes)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:16, 0:16]
    cy, cx = rng.uniform(5, 11, (2, n, 1, 1))
    r = np.hypot(yy - cy, xx - cx)
    img = np.exp(-(r - 4.0) ** 2)
    return (img[:, None] * 2 - 1).astype(np.float32)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('--batchSize', type=int, default=8)
    parser.add_argument('--niter', type=int, default=2)
    parser.add_argument('--lr', type=float, default=0.0002)
    parser.add_argument('--beta1', type=float, default=0.5)
    parser.add_argument('--manualSeed', type=int, default=999)
    opt = parser.parse_args(argv)
    mg.manual_seed(opt.manualSeed)
    dataset = mg.utils.data.TensorDataset(mg.from_numpy(rings(32)))
    dataloader = mg.utils.data.DataLoader(dataset, batch_size=opt.batchSize, shuffle=False, drop_last=True)
    device = mg.device("cpu")

    netG = Generator().to(device)
    netG.apply(weights_init)
    netD = Discriminator().to(device)
    netD.apply(weights_init)
    if init is not None:  # a test hook: records or loads the starting weights
        init('G', netG)
        init('D', netD)

    criterion = nn.BCEWithLogitsLoss()
    fixed_noise = mg.randn(opt.batchSize, nz, 1, 1, device=device)
    real_label = 1
    fake_label = 0

    # setup optimizer
    optimizerD = optim.Adam(netD.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
    optimizerG = optim.Adam(netG.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))

    history = []
    for epoch in range(opt.niter):
        for i, data in enumerate(dataloader, 0):
            ############################
            # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
            ###########################
            # train with real
            netD.zero_grad(set_to_none=True)
            real_cpu = data[0].to(device)
            batch_size = real_cpu.size(0)
            label = mg.full((batch_size,), real_label, dtype=real_cpu.dtype, device=device)

            output = netD(real_cpu)
            errD_real = criterion(output, label)
            errD_real.backward()
            D_x = mg.sigmoid(output).mean().item()

            # train with fake
            noise = mg.randn(batch_size, nz, 1, 1, device=device)
            fake = netG(noise)
            label.fill_(fake_label)
            output = netD(fake.detach())
            errD_fake = criterion(output, label)
            errD_fake.backward()
            D_G_z1 = mg.sigmoid(output).mean().item()
            errD = errD_real + errD_fake
            optimizerD.step()

            ############################
            # (2) Update G network: maximize log(D(G(z)))
            ###########################
            netG.zero_grad()
            label.fill_(real_label)  # fake labels are real for generator cost
            output = netD(fake)
            errG = criterion(output, label)
            errG.backward()
            D_G_z2 = mg.sigmoid(output).mean().item()
            optimizerG.step()

            print('[%d/%d][%d/%d] Loss_D: %.4f Loss_G: %.4f D(x): %.4f D(G(z)): %.4f / %.4f'
                  % (epoch, opt.niter, i, len(dataloader),
                     errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))
            history += [errD.item(), errG.item(), D_x, D_G_z1, D_G_z2]
        netG.eval()
        with mg.no_grad():
            fake = netG(fixed_noise)
        netG.train()
        history.append(fake.abs().mean().item())
    return history, (netG, netD)


if __name__ == '__main__':
    main()
