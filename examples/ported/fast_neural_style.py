"""pytorch/examples ``fast_neural_style`` (``neural_style/transformer_net.py``, ``vgg.py``,
``utils.py`` and the loop of ``neural_style.py``'s ``train``), ported to minigrad_ckpt by a
mechanical rename.

    python examples/ported/fast_neural_style.py --epochs 2

The image transformation network: reflection-padded convolutions, ``InstanceNorm2d(affine=True)``,
residual blocks, and upsampling by ``F.interpolate(mode='nearest', scale_factor=2)`` before a
convolution; trained with Adam against a frozen loss network (its parameters'
``requires_grad = False``, its outputs a ``namedtuple``) on a content loss and a style loss of
Gram matrices, the batches normalized in place (``div_``).  Small: 16x16 images, fewer channels
and residual blocks, and a small VGG-like loss network with fixed random weights instead of
VGG16's trained ones; the lines that differ are listed in ``README.md``.
"""

import argparse
from collections import namedtuple

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt.optim import Adam
from minigrad_ckpt.utils.data import DataLoader, TensorDataset

C1, C2, C3 = 8, 12, 16  # the original's 32, 64, 128


class TransformerNet(mg.nn.Module):
    def __init__(self):
        super(TransformerNet, self).__init__()
        # Initial convolution layers
        self.conv1 = ConvLayer(3, C1, kernel_size=9, stride=1)
        self.in1 = mg.nn.InstanceNorm2d(C1, affine=True)
        self.conv2 = ConvLayer(C1, C2, kernel_size=3, stride=2)
        self.in2 = mg.nn.InstanceNorm2d(C2, affine=True)
        self.conv3 = ConvLayer(C2, C3, kernel_size=3, stride=2)
        self.in3 = mg.nn.InstanceNorm2d(C3, affine=True)
        # Residual layers
        self.res1 = ResidualBlock(C3)
        self.res2 = ResidualBlock(C3)
        # Upsampling Layers
        self.deconv1 = UpsampleConvLayer(C3, C2, kernel_size=3, stride=1, upsample=2)
        self.in4 = mg.nn.InstanceNorm2d(C2, affine=True)
        self.deconv2 = UpsampleConvLayer(C2, C1, kernel_size=3, stride=1, upsample=2)
        self.in5 = mg.nn.InstanceNorm2d(C1, affine=True)
        self.deconv3 = ConvLayer(C1, 3, kernel_size=9, stride=1)
        # Non-linearities
        self.relu = mg.nn.ReLU()

    def forward(self, X):
        y = self.relu(self.in1(self.conv1(X)))
        y = self.relu(self.in2(self.conv2(y)))
        y = self.relu(self.in3(self.conv3(y)))
        y = self.res1(y)
        y = self.res2(y)
        y = self.relu(self.in4(self.deconv1(y)))
        y = self.relu(self.in5(self.deconv2(y)))
        y = self.deconv3(y)
        return y


class ConvLayer(mg.nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride):
        super(ConvLayer, self).__init__()
        reflection_padding = kernel_size // 2
        self.reflection_pad = mg.nn.ReflectionPad2d(reflection_padding)
        self.conv2d = mg.nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        out = self.reflection_pad(x)
        out = self.conv2d(out)
        return out


class ResidualBlock(mg.nn.Module):
    def __init__(self, channels):
        super(ResidualBlock, self).__init__()
        self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in1 = mg.nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in2 = mg.nn.InstanceNorm2d(channels, affine=True)
        self.relu = mg.nn.ReLU()

    def forward(self, x):
        residual = x
        out = self.relu(self.in1(self.conv1(x)))
        out = self.in2(self.conv2(out))
        out = out + residual
        return out


class UpsampleConvLayer(mg.nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
        super(UpsampleConvLayer, self).__init__()
        self.upsample = upsample
        reflection_padding = kernel_size // 2
        self.reflection_pad = mg.nn.ReflectionPad2d(reflection_padding)
        self.conv2d = mg.nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        x_in = x
        if self.upsample:
            x_in = mg.nn.functional.interpolate(x_in, mode='nearest', scale_factor=self.upsample)
        out = self.reflection_pad(x_in)
        out = self.conv2d(out)
        return out


def vgg_like_features():
    """The first layers of VGG16's ``features`` (two convolutions per block, max pooling), fewer channels."""
    nn = mg.nn
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(4, 4, 3, padding=1),
                         nn.ReLU(inplace=True), nn.MaxPool2d(kernel_size=2, stride=2),
                         nn.Conv2d(4, 6, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(6, 6, 3, padding=1),
                         nn.ReLU(inplace=True), nn.MaxPool2d(kernel_size=2, stride=2),
                         nn.Conv2d(6, 8, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(8, 8, 3, padding=1),
                         nn.ReLU(inplace=True))


class Vgg16(mg.nn.Module):
    def __init__(self, requires_grad=False):
        super(Vgg16, self).__init__()
        vgg_pretrained_features = vgg_like_features()
        self.slice1 = mg.nn.Sequential()
        self.slice2 = mg.nn.Sequential()
        self.slice3 = mg.nn.Sequential()
        for x in range(4):
            self.slice1.add_module(str(x), vgg_pretrained_features[x])
        for x in range(4, 9):
            self.slice2.add_module(str(x), vgg_pretrained_features[x])
        for x in range(9, 14):
            self.slice3.add_module(str(x), vgg_pretrained_features[x])
        if not requires_grad:
            for param in self.parameters():
                param.requires_grad = False

    def forward(self, X):
        h = self.slice1(X)
        h_relu1_2 = h
        h = self.slice2(h)
        h_relu2_2 = h
        h = self.slice3(h)
        h_relu3_2 = h
        vgg_outputs = namedtuple("VggOutputs", ['relu1_2', 'relu2_2', 'relu3_2'])
        out = vgg_outputs(h_relu1_2, h_relu2_2, h_relu3_2)
        return out


def gram_matrix(y):
    (b, ch, h, w) = y.size()
    features = y.view(b, ch, w * h)
    features_t = features.transpose(1, 2)
    gram = features.bmm(features_t) / (ch * h * w)
    return gram


def normalize_batch(batch):
    # normalize using imagenet mean and std
    mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
    std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
    batch = batch.div_(255.0)
    return (batch - mean) / std


def images(n, seed):
    """Smooth colour blobs in [0, 255] (what ``ToTensor()`` and ``Lambda(lambda x: x.mul(255))`` give)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:16, 0:16] / 15.0
    c = rng.uniform(0, 1, (n, 3, 1, 1, 3))
    img = c[..., 0] * np.sin(3 * xx + 6 * c[..., 1]) * np.cos(2 * yy + 6 * c[..., 2])
    return ((img + 1) * 127.5).astype(np.float32)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="parser for fast-neural-style")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--content-weight", type=float, default=1e5)
    parser.add_argument("--style-weight", type=float, default=1e10)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--log-interval", type=int, default=1)
    args = parser.parse_args(argv)
    device = mg.device("cpu")
    np.random.seed(args.seed)
    mg.manual_seed(args.seed)

    train_dataset = TensorDataset(mg.from_numpy(images(4, seed=0)), mg.zeros(4))
    train_loader = DataLoader(train_dataset, batch_size=args.batch_size)

    transformer = TransformerNet().to(device)
    vgg = Vgg16(requires_grad=False).to(device)
    if init is not None:  # a test hook: records or loads the starting weights
        init('transformer', transformer)
        init('vgg', vgg)
    optimizer = Adam(transformer.parameters(), args.lr)
    mse_loss = mg.nn.MSELoss()

    style = mg.from_numpy(images(1, seed=1)[0])
    style = style.repeat(args.batch_size, 1, 1, 1).to(device)

    features_style = vgg(normalize_batch(style))
    gram_style = [gram_matrix(y) for y in features_style]

    history = []
    for e in range(args.epochs):
        transformer.train()
        agg_content_loss = 0.
        agg_style_loss = 0.
        count = 0
        for batch_id, (x, _) in enumerate(train_loader):
            n_batch = len(x)
            count += n_batch
            optimizer.zero_grad()

            x = x.to(device)
            y = transformer(x)

            y = normalize_batch(y)
            x = normalize_batch(x)

            features_y = vgg(y)
            features_x = vgg(x)

            content_loss = args.content_weight * mse_loss(features_y.relu2_2, features_x.relu2_2)

            style_loss = 0.
            for ft_y, gm_s in zip(features_y, gram_style):
                gm_y = gram_matrix(ft_y)
                style_loss += mse_loss(gm_y, gm_s[:n_batch, :, :])
            style_loss *= args.style_weight

            total_loss = content_loss + style_loss
            total_loss.backward()
            optimizer.step()

            agg_content_loss += content_loss.item()
            agg_style_loss += style_loss.item()
            history += [content_loss.item(), style_loss.item()]

            if (batch_id + 1) % args.log_interval == 0:
                mesg = "Epoch {}:\t[{}/{}]\tcontent: {:.6f}\tstyle: {:.6f}\ttotal: {:.6f}".format(
                    e + 1, count, len(train_dataset),
                    agg_content_loss / (batch_id + 1),
                    agg_style_loss / (batch_id + 1),
                    (agg_content_loss + agg_style_loss) / (batch_id + 1)
                )
                print(mesg)

    transformer.eval().cpu()
    with mg.no_grad():
        output = transformer(mg.from_numpy(images(1, seed=2))).cpu()
    img = output[0].clone().clamp(0, 255).numpy()
    history.append(float(img.mean()))
    return history, (transformer, vgg)


if __name__ == '__main__':
    main()
