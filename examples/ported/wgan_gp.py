"""eriklindernoren's ``PyTorch-GAN`` ``implementations/wgan_gp/wgan_gp.py``, ported to minigrad_ckpt by a
mechanical rename.

    python examples/ported/wgan_gp.py --conv

A Wasserstein GAN with gradient penalty: the critic's gradient at points between real and fake
images, taken by ``autograd.grad(..., create_graph=True)``, whose norm's distance from 1 is
penalized -- so ``d_loss.backward()`` differentiates through a gradient (double backward of
``Linear``, ``LeakyReLU(0.2, inplace=True)`` and, with ``--conv``, a strided ``Conv2d``,
``InstanceNorm2d`` and ``LayerNorm`` critic as in the improved-WGAN papers).  The generator keeps
the original's ``nn.BatchNorm1d(out_feat, 0.8)`` (an ``eps`` of 0.8: the second positional
argument).  Made small: 8x8 images, widths 32 to 64, 4 critic steps with a generator step every
2nd; the lines that differ are listed in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.autograd as autograd
import minigrad_ckpt.nn as nn
from minigrad_ckpt.autograd import Variable


class Generator(nn.Module):
    def __init__(self, latent_dim, img_shape):
        super(Generator, self).__init__()
        self.img_shape = img_shape

        def block(in_feat, out_feat, normalize=True):
            layers = [nn.Linear(in_feat, out_feat)]
            if normalize:
                layers.append(nn.BatchNorm1d(out_feat, 0.8))
            layers.append(nn.LeakyReLU(0.2, inplace=True))
            return layers

        self.model = nn.Sequential(
            *block(latent_dim, 32, normalize=False),
            *block(32, 64),
            nn.Linear(64, int(np.prod(img_shape))),
            nn.Tanh()
        )

    def forward(self, z):
        img = self.model(z)
        img = img.view(img.shape[0], *self.img_shape)
        return img


class Discriminator(nn.Module):
    def __init__(self, img_shape):
        super(Discriminator, self).__init__()
        self.model = nn.Sequential(
            nn.Linear(int(np.prod(img_shape)), 64),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(64, 32),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(32, 1),
        )

    def forward(self, img):
        img_flat = img.view(img.shape[0], -1)
        validity = self.model(img_flat)
        return validity


class ConvDiscriminator(nn.Module):
    """A critic of strided convolutions without batch norm (the gradient penalty is per example)."""

    def __init__(self, img_shape):
        super(ConvDiscriminator, self).__init__()
        channels, size, _ = img_shape
        self.model = nn.Sequential(
            nn.Conv2d(channels, 8, 3, 2, 1),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(8, 16, 3, 2, 1, bias=False),  # a bias before InstanceNorm2d has no effect
            nn.InstanceNorm2d(16, affine=True),
            nn.LeakyReLU(0.2, inplace=True),
        )
        self.norm = nn.LayerNorm(16 * (size // 4) ** 2)
        self.adv_layer = nn.Linear(16 * (size // 4) ** 2, 1)

    def forward(self, img):
        out = self.model(img)
        out = out.view(out.shape[0], -1)
        return self.adv_layer(self.norm(out))


def compute_gradient_penalty(D, real_samples, fake_samples, Tensor):
    """Calculates the gradient penalty loss for WGAN GP"""
    # Random weight term for interpolation between real and fake samples
    alpha = Tensor(np.random.random((real_samples.size(0), 1, 1, 1)))
    # Get random interpolation between real and fake samples
    interpolates = (alpha * real_samples + ((1 - alpha) * fake_samples)).requires_grad_(True)
    d_interpolates = D(interpolates)
    fake = Variable(Tensor(real_samples.shape[0], 1).fill_(1.0), requires_grad=False)
    # Get gradient w.r.t. interpolates
    gradients = autograd.grad(
        outputs=d_interpolates,
        inputs=interpolates,
        grad_outputs=fake,
        create_graph=True,
        retain_graph=True,
        only_inputs=True,
    )[0]
    gradients = gradients.view(gradients.size(0), -1)
    gradient_penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
    return gradient_penalty


def rings(n, size, seed=0):
    """Rings in [-1, 1] (the stand-in for MNIST, normalized as the original's ``Normalize([0.5], [0.5])``)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size]
    cy, cx = rng.uniform(2, size - 2, (2, n, 1, 1))
    r = np.sqrt((yy - cy) ** 2 + (xx - cx) ** 2)
    return (np.exp(-(r - 2.0) ** 2) * 2 - 1)[:, None].astype(np.float32)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_epochs", type=int, default=1)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--lr", type=float, default=0.0002)
    parser.add_argument("--b1", type=float, default=0.5)
    parser.add_argument("--b2", type=float, default=0.999)
    parser.add_argument("--latent_dim", type=int, default=8)
    parser.add_argument("--img_size", type=int, default=8)
    parser.add_argument("--channels", type=int, default=1)
    parser.add_argument("--n_critic", type=int, default=2)
    parser.add_argument("--conv", action="store_true")
    opt = parser.parse_args(argv)
    img_shape = (opt.channels, opt.img_size, opt.img_size)
    np.random.seed(0)
    mg.manual_seed(0)
    # Loss weight for gradient penalty
    lambda_gp = 10
    # Initialize generator and discriminator
    generator = Generator(opt.latent_dim, img_shape)
    discriminator = (ConvDiscriminator if opt.conv else Discriminator)(img_shape)
    if init is not None:  # a test hook: records or loads the starting weights
        init("generator", generator)
        init("discriminator", discriminator)
    dataloader = mg.utils.data.DataLoader(
        mg.utils.data.TensorDataset(mg.from_numpy(rings(4 * opt.batch_size, opt.img_size)), mg.zeros(4 * opt.batch_size)),
        batch_size=opt.batch_size,
        shuffle=False,
    )
    optimizer_G = mg.optim.Adam(generator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))
    optimizer_D = mg.optim.Adam(discriminator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))
    Tensor = mg.FloatTensor
    history = []
    for epoch in range(opt.n_epochs):
        for i, (imgs, _) in enumerate(dataloader):
            # Configure input
            real_imgs = Variable(imgs.type(Tensor))
            #  Train Discriminator
            optimizer_D.zero_grad()
            # Sample noise as generator input
            z = Variable(Tensor(np.random.normal(0, 1, (imgs.shape[0], opt.latent_dim))))
            # Generate a batch of images
            fake_imgs = generator(z)
            # Real images
            real_validity = discriminator(real_imgs)
            # Fake images
            fake_validity = discriminator(fake_imgs)
            # Gradient penalty
            gradient_penalty = compute_gradient_penalty(discriminator, real_imgs.data, fake_imgs.data, Tensor)
            # Adversarial loss
            d_loss = -mg.mean(real_validity) + mg.mean(fake_validity) + lambda_gp * gradient_penalty
            d_loss.backward()
            optimizer_D.step()
            history += [d_loss.item(), gradient_penalty.item()]
            optimizer_G.zero_grad()
            # Train the generator every n_critic steps
            if i % opt.n_critic == 0:
                #  Train Generator
                # Generate a batch of images
                fake_imgs = generator(z)
                # Loss measures generator's ability to fool the discriminator
                # Train on fake images
                fake_validity = discriminator(fake_imgs)
                g_loss = -mg.mean(fake_validity)
                g_loss.backward()
                optimizer_G.step()
                history.append(g_loss.item())
    return history, (generator, discriminator)


if __name__ == "__main__":
    print(main()[0])
