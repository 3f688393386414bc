"""eriklindernoren's ``PyTorch-GAN`` ``implementations/munit/munit.py`` and its ``models.py``, ported to
minigrad_ckpt by a mechanical rename.

    python examples/ported/munit.py --double

MUNIT translates images between two domains through a content code (the ``ContentEncoder``'s
feature map) and a style code (the ``StyleEncoder``'s vector).  The decoder's residual blocks normalize
with ``AdaptiveInstanceNorm2d``, whose ``weight`` and ``bias`` are plain attributes (not parameters)
that ``Decoder.assign_adain_params`` overwrites on every call with slices of an MLP's output, and which
computes instance norm as ``F.batch_norm(..., training=True)`` of a ``(1, b*c, h, w)`` view over
repeated running statistics -- so the style MLP's gradients reach it through a functional norm's
weight.  The decoder's ``LayerNorm`` is the models' own (per-sample mean and unbiased ``std``), and each
of the two discriminators judges three scales, ``AvgPool2d(3, stride=2, padding=[1, 1],
count_include_pad=False)`` between them; the learning rates decay by ``LambdaLR`` with a bound method of
the models' own ``LambdaLR`` class.  Made small: 128x128 images (three discriminator scales of four
stride-2 blocks with instance norm need 128), widths 4 to 32; the lines that differ are listed in
``README.md``.
"""

import argparse
import itertools

import numpy as np
from local_data import default_dtype

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.autograd import Variable
from minigrad_ckpt.utils.data import DataLoader, Dataset


def weights_init_normal(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        mg.nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find("BatchNorm2d") != -1:
        mg.nn.init.normal_(m.weight.data, 1.0, 0.02)
        mg.nn.init.constant_(m.bias.data, 0.0)


class LambdaLR:
    def __init__(self, n_epochs, offset, decay_start_epoch):
        assert (n_epochs - decay_start_epoch) > 0, "Decay must start before the training session ends!"
        self.n_epochs = n_epochs
        self.offset = offset
        self.decay_start_epoch = decay_start_epoch

    def step(self, epoch):
        return 1.0 - max(0, epoch + self.offset - self.decay_start_epoch) / (self.n_epochs - self.decay_start_epoch)


class Encoder(nn.Module):
    def __init__(self, in_channels=3, dim=64, n_residual=3, n_downsample=2, style_dim=8):
        super(Encoder, self).__init__()
        self.content_encoder = ContentEncoder(in_channels, dim, n_residual, n_downsample)
        self.style_encoder = StyleEncoder(in_channels, dim, n_downsample, style_dim)

    def forward(self, x):
        content_code = self.content_encoder(x)
        style_code = self.style_encoder(x)
        return content_code, style_code


class Decoder(nn.Module):
    def __init__(self, out_channels=3, dim=64, n_residual=3, n_upsample=2, style_dim=8):
        super(Decoder, self).__init__()

        layers = []
        dim = dim * 2 ** n_upsample
        # Residual blocks
        for _ in range(n_residual):
            layers += [ResidualBlock(dim, norm="adain")]

        # Upsampling
        for _ in range(n_upsample):
            layers += [
                nn.Upsample(scale_factor=2),
                nn.Conv2d(dim, dim // 2, 5, stride=1, padding=2),
                LayerNorm(dim // 2),
                nn.ReLU(inplace=True),
            ]
            dim = dim // 2

        # Output layer
        layers += [nn.ReflectionPad2d(3), nn.Conv2d(dim, out_channels, 7), nn.Tanh()]

        self.model = nn.Sequential(*layers)

        # Initiate mlp (predicts AdaIN parameters)
        num_adain_params = self.get_num_adain_params()
        self.mlp = MLP(style_dim, num_adain_params)

    def get_num_adain_params(self):
        """Return the number of AdaIN parameters needed by the model"""
        num_adain_params = 0
        for m in self.modules():
            if m.__class__.__name__ == "AdaptiveInstanceNorm2d":
                num_adain_params += 2 * m.num_features
        return num_adain_params

    def assign_adain_params(self, adain_params):
        """Assign the adain_params to the AdaIN layers in model"""
        for m in self.modules():
            if m.__class__.__name__ == "AdaptiveInstanceNorm2d":
                # Extract mean and std predictions
                mean = adain_params[:, : m.num_features]
                std = adain_params[:, m.num_features : 2 * m.num_features]
                # Update bias and weight
                m.bias = mean.contiguous().view(-1)
                m.weight = std.contiguous().view(-1)
                # Move pointer
                if adain_params.size(1) > 2 * m.num_features:
                    adain_params = adain_params[:, 2 * m.num_features :]

    def forward(self, content_code, style_code):
        # Update AdaIN parameters by MLP prediction based off style code
        self.assign_adain_params(self.mlp(style_code))
        img = self.model(content_code)
        return img


class ContentEncoder(nn.Module):
    def __init__(self, in_channels=3, dim=64, n_residual=3, n_downsample=2):
        super(ContentEncoder, self).__init__()

        # Initial convolution block
        layers = [
            nn.ReflectionPad2d(3),
            nn.Conv2d(in_channels, dim, 7),
            nn.InstanceNorm2d(dim),
            nn.ReLU(inplace=True),
        ]

        # Downsampling
        for _ in range(n_downsample):
            layers += [
                nn.Conv2d(dim, dim * 2, 4, stride=2, padding=1),
                nn.InstanceNorm2d(dim * 2),
                nn.ReLU(inplace=True),
            ]
            dim *= 2

        # Residual blocks
        for _ in range(n_residual):
            layers += [ResidualBlock(dim, norm="in")]

        self.model = nn.Sequential(*layers)

    def forward(self, x):
        return self.model(x)


class StyleEncoder(nn.Module):
    def __init__(self, in_channels=3, dim=64, n_downsample=2, style_dim=8):
        super(StyleEncoder, self).__init__()

        # Initial conv block
        layers = [nn.ReflectionPad2d(3), nn.Conv2d(in_channels, dim, 7), nn.ReLU(inplace=True)]

        # Downsampling
        for _ in range(2):
            layers += [nn.Conv2d(dim, dim * 2, 4, stride=2, padding=1), nn.ReLU(inplace=True)]
            dim *= 2

        # Downsampling with constant depth
        for _ in range(n_downsample - 2):
            layers += [nn.Conv2d(dim, dim, 4, stride=2, padding=1), nn.ReLU(inplace=True)]

        # Average pool and output layer
        layers += [nn.AdaptiveAvgPool2d(1), nn.Conv2d(dim, style_dim, 1, 1, 0)]

        self.model = nn.Sequential(*layers)

    def forward(self, x):
        return self.model(x)


class MLP(nn.Module):
    def __init__(self, input_dim, output_dim, dim=32, n_blk=3, activ="relu"):
        super(MLP, self).__init__()
        layers = [nn.Linear(input_dim, dim), nn.ReLU(inplace=True)]
        for _ in range(n_blk - 2):
            layers += [nn.Linear(dim, dim), nn.ReLU(inplace=True)]
        layers += [nn.Linear(dim, output_dim)]
        self.model = nn.Sequential(*layers)

    def forward(self, x):
        return self.model(x.view(x.size(0), -1))


class MultiDiscriminator(nn.Module):
    def __init__(self, in_channels=3):
        super(MultiDiscriminator, self).__init__()

        def discriminator_block(in_filters, out_filters, normalize=True):
            """Returns downsampling layers of each discriminator block"""
            layers = [nn.Conv2d(in_filters, out_filters, 4, stride=2, padding=1)]
            if normalize:
                layers.append(nn.InstanceNorm2d(out_filters))
            layers.append(nn.LeakyReLU(0.2, inplace=True))
            return layers

        # Extracts three discriminator models
        self.models = nn.ModuleList()
        for i in range(3):
            self.models.add_module(
                "disc_%d" % i,
                nn.Sequential(
                    *discriminator_block(in_channels, 4, normalize=False),
                    *discriminator_block(4, 8),
                    *discriminator_block(8, 16),
                    *discriminator_block(16, 32),
                    nn.Conv2d(32, 1, 3, padding=1)
                ),
            )

        self.downsample = nn.AvgPool2d(in_channels, stride=2, padding=[1, 1], count_include_pad=False)

    def compute_loss(self, x, gt):
        """Computes the MSE between model output and scalar gt"""
        loss = sum([mg.mean((out - gt) ** 2) for out in self.forward(x)])
        return loss

    def forward(self, x):
        outputs = []
        for m in self.models:
            outputs.append(m(x))
            x = self.downsample(x)
        return outputs


class ResidualBlock(nn.Module):
    def __init__(self, features, norm="in"):
        super(ResidualBlock, self).__init__()

        norm_layer = AdaptiveInstanceNorm2d if norm == "adain" else nn.InstanceNorm2d

        self.block = nn.Sequential(
            nn.ReflectionPad2d(1),
            nn.Conv2d(features, features, 3),
            norm_layer(features),
            nn.ReLU(inplace=True),
            nn.ReflectionPad2d(1),
            nn.Conv2d(features, features, 3),
            norm_layer(features),
        )

    def forward(self, x):
        return x + self.block(x)


class AdaptiveInstanceNorm2d(nn.Module):
    """Reference: https://github.com/NVlabs/MUNIT/blob/master/networks.py"""

    def __init__(self, num_features, eps=1e-5, momentum=0.1):
        super(AdaptiveInstanceNorm2d, self).__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        # weight and bias are dynamically assigned
        self.weight = None
        self.bias = None
        # just dummy buffers, not used
        self.register_buffer("running_mean", mg.zeros(num_features))
        self.register_buffer("running_var", mg.ones(num_features))

    def forward(self, x):
        assert (
            self.weight is not None and self.bias is not None
        ), "Please assign weight and bias before calling AdaIN!"
        b, c, h, w = x.size()
        running_mean = self.running_mean.repeat(b)
        running_var = self.running_var.repeat(b)

        # Apply instance norm
        x_reshaped = x.contiguous().view(1, b * c, h, w)

        out = F.batch_norm(
            x_reshaped, running_mean, running_var, self.weight, self.bias, True, self.momentum, self.eps
        )

        return out.view(b, c, h, w)

    def __repr__(self):
        return self.__class__.__name__ + "(" + str(self.num_features) + ")"


class LayerNorm(nn.Module):
    def __init__(self, num_features, eps=1e-5, affine=True):
        super(LayerNorm, self).__init__()
        self.num_features = num_features
        self.affine = affine
        self.eps = eps

        if self.affine:
            self.gamma = nn.Parameter(mg.Tensor(num_features).uniform_())
            self.beta = nn.Parameter(mg.zeros(num_features))

    def forward(self, x):
        shape = [-1] + [1] * (x.dim() - 1)
        mean = x.view(x.size(0), -1).mean(1).view(*shape)
        std = x.view(x.size(0), -1).std(1).view(*shape)
        x = (x - mean) / (std + self.eps)

        if self.affine:
            shape = [1, -1] + [1] * (x.dim() - 2)
            x = x * self.gamma.view(*shape) + self.beta.view(*shape)
        return x


def two_domains(n, size, seed):
    """Paired stand-ins for edges2shoes: domain A a ring's edge, domain B the filled disc, in [-1, 1]
    (the original's ``Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))`` range), 3 channels."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size]
    cy, cx = rng.uniform(size / 4, 3 * size / 4, (2, n, 1, 1))
    radius = rng.uniform(size / 8, size / 4, (n, 1, 1))
    r = np.sqrt((yy - cy) ** 2 + (xx - cx) ** 2)
    edge = np.exp(-(r - radius) ** 2 / 4.0) * 2 - 1
    colour = rng.uniform(-1, 1, (n, 3, 1, 1))
    disc = np.where((r < radius)[:, None], colour, -1.0)
    return np.repeat(edge[:, None], 3, axis=1).astype(np.float32), disc.astype(np.float32)


class ImageDataset(Dataset):
    """The original's ``ImageDataset`` (pairs of domain A and B images, as ``{"A": ..., "B": ...}``)
    over :func:`two_domains` instead of image files."""

    def __init__(self, n, size, mode="train"):
        self.A, self.B = two_domains(n, size, seed=0 if mode == "train" else 1)

    def __getitem__(self, index):
        return {"A": mg.from_numpy(self.A[index]), "B": mg.from_numpy(self.B[index])}

    def __len__(self):
        return len(self.A)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epoch", type=int, default=0, help="epoch to start training from")
    parser.add_argument("--n_epochs", type=int, default=3, help="number of epochs of training")
    parser.add_argument("--dataset_name", type=str, default="edges2shoes", help="name of the dataset")
    parser.add_argument("--batch_size", type=int, default=1, help="size of the batches")
    parser.add_argument("--lr", type=float, default=0.0001, help="adam: learning rate")
    parser.add_argument("--b1", type=float, default=0.5, help="adam: decay of first order momentum of gradient")
    parser.add_argument("--b2", type=float, default=0.999, help="adam: decay of first order momentum of gradient")
    parser.add_argument("--decay_epoch", type=int, default=1, help="epoch from which to start lr decay")
    parser.add_argument("--img_height", type=int, default=128, help="size of image height")
    parser.add_argument("--img_width", type=int, default=128, help="size of image width")
    parser.add_argument("--channels", type=int, default=3, help="number of image channels")
    parser.add_argument("--sample_interval", type=int, default=400, help="interval saving generator samples")
    parser.add_argument("--checkpoint_interval", type=int, default=-1, help="interval between saving model checkpoints")
    parser.add_argument("--n_downsample", type=int, default=2, help="number downsampling layers in encoder")
    parser.add_argument("--n_residual", type=int, default=1, help="number of residual blocks in encoder / decoder")
    parser.add_argument("--dim", type=int, default=4, help="number of filters in first encoder layer")
    parser.add_argument("--style_dim", type=int, default=8, help="dimensionality of the style code")
    parser.add_argument("--n_images", type=int, default=1, help="training pairs (the data set's size)")
    parser.add_argument("--double", action="store_true", help="run in float64")
    opt = parser.parse_args(argv)
    with default_dtype(opt.double):
        return train(opt, init)


def train(opt, init):
    np.random.seed(0)
    mg.manual_seed(0)
    cuda = mg.cuda.is_available()

    criterion_recon = mg.nn.L1Loss()

    # Initialize encoders, generators and discriminators
    Enc1 = Encoder(dim=opt.dim, n_downsample=opt.n_downsample, n_residual=opt.n_residual, style_dim=opt.style_dim)
    Dec1 = Decoder(dim=opt.dim, n_upsample=opt.n_downsample, n_residual=opt.n_residual, style_dim=opt.style_dim)
    Enc2 = Encoder(dim=opt.dim, n_downsample=opt.n_downsample, n_residual=opt.n_residual, style_dim=opt.style_dim)
    Dec2 = Decoder(dim=opt.dim, n_upsample=opt.n_downsample, n_residual=opt.n_residual, style_dim=opt.style_dim)
    D1 = MultiDiscriminator()
    D2 = MultiDiscriminator()

    if opt.epoch != 0:
        # Load pretrained models
        Enc1.load_state_dict(mg.load("saved_models/%s/Enc1_%d.pth" % (opt.dataset_name, opt.epoch)))
        Dec1.load_state_dict(mg.load("saved_models/%s/Dec1_%d.pth" % (opt.dataset_name, opt.epoch)))
        Enc2.load_state_dict(mg.load("saved_models/%s/Enc2_%d.pth" % (opt.dataset_name, opt.epoch)))
        Dec2.load_state_dict(mg.load("saved_models/%s/Dec2_%d.pth" % (opt.dataset_name, opt.epoch)))
        D1.load_state_dict(mg.load("saved_models/%s/D1_%d.pth" % (opt.dataset_name, opt.epoch)))
        D2.load_state_dict(mg.load("saved_models/%s/D2_%d.pth" % (opt.dataset_name, opt.epoch)))
    else:
        # Initialize weights
        Enc1.apply(weights_init_normal)
        Dec1.apply(weights_init_normal)
        Enc2.apply(weights_init_normal)
        Dec2.apply(weights_init_normal)
        D1.apply(weights_init_normal)
        D2.apply(weights_init_normal)
    models = {"Enc1": Enc1, "Dec1": Dec1, "Enc2": Enc2, "Dec2": Dec2, "D1": D1, "D2": D2}
    if init is not None:  # a test hook: records or loads the starting weights
        for key, model in models.items():
            init(key, model)

    # Loss weights
    lambda_gan = 1
    lambda_id = 10
    lambda_style = 1
    lambda_cont = 1
    lambda_cyc = 0

    # Optimizers
    optimizer_G = mg.optim.Adam(
        itertools.chain(Enc1.parameters(), Dec1.parameters(), Enc2.parameters(), Dec2.parameters()),
        lr=opt.lr,
        betas=(opt.b1, opt.b2),
    )
    optimizer_D1 = mg.optim.Adam(D1.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))
    optimizer_D2 = mg.optim.Adam(D2.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))

    # Learning rate update schedulers
    lr_scheduler_G = mg.optim.lr_scheduler.LambdaLR(
        optimizer_G, lr_lambda=LambdaLR(opt.n_epochs, opt.epoch, opt.decay_epoch).step
    )
    lr_scheduler_D1 = mg.optim.lr_scheduler.LambdaLR(
        optimizer_D1, lr_lambda=LambdaLR(opt.n_epochs, opt.epoch, opt.decay_epoch).step
    )
    lr_scheduler_D2 = mg.optim.lr_scheduler.LambdaLR(
        optimizer_D2, lr_lambda=LambdaLR(opt.n_epochs, opt.epoch, opt.decay_epoch).step
    )

    Tensor = mg.cuda.FloatTensor if cuda else mg.Tensor

    # Configure dataloaders
    dataloader = DataLoader(
        ImageDataset(opt.n_images, opt.img_height),
        batch_size=opt.batch_size,
        shuffle=True,
    )

    val_dataloader = DataLoader(
        ImageDataset(4, opt.img_height, mode="val"),
        batch_size=2,
        shuffle=True,
    )

    def sample_images(batches_done):
        """The original's sample grid, returned (it saves it as a PNG)"""
        imgs = next(iter(val_dataloader))
        img_samples = None
        for img1, img2 in zip(imgs["A"], imgs["B"]):
            # Create copies of image
            X1 = img1.unsqueeze(0).repeat(opt.style_dim, 1, 1, 1)
            X1 = Variable(X1.type(Tensor))
            # Get random style codes
            s_code = np.random.uniform(-1, 1, (opt.style_dim, opt.style_dim))
            s_code = Variable(Tensor(s_code))
            # Generate samples
            c_code_1, _ = Enc1(X1)
            X12 = Dec2(c_code_1, s_code)
            # Concatenate samples horisontally
            X12 = mg.cat([x for x in X12.data.cpu()], -1)
            img_sample = mg.cat((img1.type(Tensor), X12), -1).unsqueeze(0)
            # Concatenate with previous samples vertically
            img_samples = img_sample if img_samples is None else mg.cat((img_samples, img_sample), -2)
        return img_samples

    # Adversarial ground truths
    valid = 1
    fake = 0

    history = []
    for epoch in range(opt.epoch, opt.n_epochs):
        for i, batch in enumerate(dataloader):

            # Set model input
            X1 = Variable(batch["A"].type(Tensor))
            X2 = Variable(batch["B"].type(Tensor))

            # Sampled style codes
            style_1 = Variable(mg.randn(X1.size(0), opt.style_dim, 1, 1).type(Tensor))
            style_2 = Variable(mg.randn(X1.size(0), opt.style_dim, 1, 1).type(Tensor))

            # -------------------------------
            #  Train Encoders and Generators
            # -------------------------------

            optimizer_G.zero_grad()

            # Get shared latent representation
            c_code_1, s_code_1 = Enc1(X1)
            c_code_2, s_code_2 = Enc2(X2)

            # Reconstruct images
            X11 = Dec1(c_code_1, s_code_1)
            X22 = Dec2(c_code_2, s_code_2)

            # Translate images
            X21 = Dec1(c_code_2, style_1)
            X12 = Dec2(c_code_1, style_2)

            # Cycle translation
            c_code_21, s_code_21 = Enc1(X21)
            c_code_12, s_code_12 = Enc2(X12)
            X121 = Dec1(c_code_12, s_code_1) if lambda_cyc > 0 else 0
            X212 = Dec2(c_code_21, s_code_2) if lambda_cyc > 0 else 0

            # Losses
            loss_GAN_1 = lambda_gan * D1.compute_loss(X21, valid)
            loss_GAN_2 = lambda_gan * D2.compute_loss(X12, valid)
            loss_ID_1 = lambda_id * criterion_recon(X11, X1)
            loss_ID_2 = lambda_id * criterion_recon(X22, X2)
            loss_s_1 = lambda_style * criterion_recon(s_code_21, style_1)
            loss_s_2 = lambda_style * criterion_recon(s_code_12, style_2)
            loss_c_1 = lambda_cont * criterion_recon(c_code_12, c_code_1.detach())
            loss_c_2 = lambda_cont * criterion_recon(c_code_21, c_code_2.detach())
            loss_cyc_1 = lambda_cyc * criterion_recon(X121, X1) if lambda_cyc > 0 else 0
            loss_cyc_2 = lambda_cyc * criterion_recon(X212, X2) if lambda_cyc > 0 else 0

            # Total loss
            loss_G = (
                loss_GAN_1
                + loss_GAN_2
                + loss_ID_1
                + loss_ID_2
                + loss_s_1
                + loss_s_2
                + loss_c_1
                + loss_c_2
                + loss_cyc_1
                + loss_cyc_2
            )

            loss_G.backward()
            optimizer_G.step()

            # -----------------------
            #  Train Discriminator 1
            # -----------------------

            optimizer_D1.zero_grad()

            loss_D1 = D1.compute_loss(X1, valid) + D1.compute_loss(X21.detach(), fake)

            loss_D1.backward()
            optimizer_D1.step()

            # -----------------------
            #  Train Discriminator 2
            # -----------------------

            optimizer_D2.zero_grad()

            loss_D2 = D2.compute_loss(X2, valid) + D2.compute_loss(X12.detach(), fake)

            loss_D2.backward()
            optimizer_D2.step()

            # Log progress: the losses the original prints
            batches_done = epoch * len(dataloader) + i
            print("[Epoch %d/%d] [Batch %d/%d] [D loss: %f] [G loss: %f]"
                  % (epoch, opt.n_epochs, i, len(dataloader), (loss_D1 + loss_D2).item(), loss_G.item()))
            history += [(loss_D1 + loss_D2).item(), loss_G.item(), loss_s_1.item(), loss_c_2.item()]

            # If at sample interval save image
            if batches_done % opt.sample_interval == 0:
                img_samples = sample_images(batches_done)
                history += [tuple(img_samples.shape) == (1, 3, 2 * opt.img_height, 9 * opt.img_width),
                            img_samples.double().abs().sum().item()]

        # Update learning rates
        lr_scheduler_G.step()
        lr_scheduler_D1.step()
        lr_scheduler_D2.step()
        history.append(optimizer_G.param_groups[0]["lr"])

        if opt.checkpoint_interval != -1 and epoch % opt.checkpoint_interval == 0:
            # Save model checkpoints
            mg.save(Enc1.state_dict(), "saved_models/%s/Enc1_%d.pth" % (opt.dataset_name, epoch))
            mg.save(Dec1.state_dict(), "saved_models/%s/Dec1_%d.pth" % (opt.dataset_name, epoch))
            mg.save(Enc2.state_dict(), "saved_models/%s/Enc2_%d.pth" % (opt.dataset_name, epoch))
            mg.save(Dec2.state_dict(), "saved_models/%s/Dec2_%d.pth" % (opt.dataset_name, epoch))
            mg.save(D1.state_dict(), "saved_models/%s/D1_%d.pth" % (opt.dataset_name, epoch))
            mg.save(D2.state_dict(), "saved_models/%s/D2_%d.pth" % (opt.dataset_name, epoch))

    # the final weights, summed (the fixture keeps no weights: these stand for them)
    history += [sum(p.double().abs().sum().item() for p in m.parameters()) for m in models.values()]
    return history, tuple(models.values())


if __name__ == "__main__":
    print(main()[0])
