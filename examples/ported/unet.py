"""A U-Net for segmentation (milesial's ``Pytorch-UNet``: ``unet/unet_parts.py``, ``unet/unet_model.py``,
``utils/dice_score.py`` and the step of ``train.py``): double convolutions with BatchNorm, max-pool downs,
ups by bilinear ``nn.Upsample`` or ``ConvTranspose2d``, the skip's padding to the upsampled size and
concatenation, cross entropy plus the multiclass Dice loss, RMSprop and ``clip_grad_norm_``; ported to
minigrad_ckpt by a mechanical rename.

    python examples/ported/unet.py --double
    python examples/ported/unet.py --double --bilinear

Made small: two downs and two ups (four of each) from 4 channels (64) on 1x10x10 images (Carvana's RGB
crops), so the 2x2 bottom upsamples to 4x4 and is padded to the skip's 5x5; 3 classes on masks made
here; RMSprop's ``foreach=True`` and AMP's ``GradScaler`` (disabled off CUDA) are left out; ``--steps``
steps (the original: epochs over the dataset), then the evaluation's Dice score (``evaluate.py``).  The
lines that differ are listed in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt import Tensor


class DoubleConv(nn.Module):
    """(convolution => [BN] => ReLU) * 2"""

    def __init__(self, in_channels, out_channels, mid_channels=None):
        super().__init__()
        if not mid_channels:
            mid_channels = out_channels
        self.double_conv = nn.Sequential(
            nn.Conv2d(in_channels, mid_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(mid_channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(mid_channels, out_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True)
        )

    def forward(self, x):
        return self.double_conv(x)


class Down(nn.Module):
    """Downscaling with maxpool then double conv"""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.maxpool_conv = nn.Sequential(
            nn.MaxPool2d(2),
            DoubleConv(in_channels, out_channels)
        )

    def forward(self, x):
        return self.maxpool_conv(x)


class Up(nn.Module):
    """Upscaling then double conv"""

    def __init__(self, in_channels, out_channels, bilinear=True):
        super().__init__()

        # if bilinear, use the normal convolutions to reduce the number of channels
        if bilinear:
            self.up = nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)
            self.conv = DoubleConv(in_channels, out_channels, in_channels // 2)
        else:
            self.up = nn.ConvTranspose2d(in_channels, in_channels // 2, kernel_size=2, stride=2)
            self.conv = DoubleConv(in_channels, out_channels)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        # input is CHW
        diffY = x2.size()[2] - x1.size()[2]
        diffX = x2.size()[3] - x1.size()[3]

        x1 = F.pad(x1, [diffX // 2, diffX - diffX // 2,
                        diffY // 2, diffY - diffY // 2])
        # if you have padding issues, see
        # https://github.com/HaiyongJiang/U-Net-Pytorch-Unstructured-Buggy/commit/0e854509c2cea854e247a9c615f175f76fbb2e3a
        # https://github.com/xiaopeng-liao/Pytorch-UNet/commit/8ebac70e633bac59fc22bb5195e513d5832fb3bd
        x = mg.cat([x2, x1], dim=1)
        return self.conv(x)


class OutConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super(OutConv, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, x):
        return self.conv(x)


class UNet(nn.Module):
    def __init__(self, n_channels, n_classes, bilinear=False):
        super(UNet, self).__init__()
        self.n_channels = n_channels
        self.n_classes = n_classes
        self.bilinear = bilinear

        self.inc = (DoubleConv(n_channels, 4))
        self.down1 = (Down(4, 8))
        factor = 2 if bilinear else 1
        self.down2 = (Down(8, 16 // factor))
        self.up1 = (Up(16, 8 // factor, bilinear))
        self.up2 = (Up(8, 4, bilinear))
        self.outc = (OutConv(4, n_classes))

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x = self.up1(x3, x2)
        x = self.up2(x, x1)
        logits = self.outc(x)
        return logits


def dice_coeff(input: Tensor, target: Tensor, reduce_batch_first: bool = False, epsilon: float = 1e-6):
    # Average of Dice coefficient for all batches, or for a single mask
    assert input.size() == target.size()
    assert input.dim() == 3 or not reduce_batch_first

    sum_dim = (-1, -2) if input.dim() == 2 or not reduce_batch_first else (-1, -2, -3)

    inter = 2 * (input * target).sum(dim=sum_dim)
    sets_sum = input.sum(dim=sum_dim) + target.sum(dim=sum_dim)
    sets_sum = mg.where(sets_sum == 0, inter, sets_sum)

    dice = (inter + epsilon) / (sets_sum + epsilon)
    return dice.mean()


def multiclass_dice_coeff(input: Tensor, target: Tensor, reduce_batch_first: bool = False, epsilon: float = 1e-6):
    # Average of Dice coefficient for all classes
    return dice_coeff(input.flatten(0, 1), target.flatten(0, 1), reduce_batch_first, epsilon)


def dice_loss(input: Tensor, target: Tensor, multiclass: bool = False):
    # Dice loss (objective to minimize) between 0 and 1
    fn = multiclass_dice_coeff if multiclass else dice_coeff
    return 1 - fn(input, target, reduce_batch_first=True)


def masks(rng, n, size, dtype):
    """Images of a disc and a bar on noise, and their masks (0 background, 1 disc, 2 bar)."""
    yy, xx = np.mgrid[:size, :size]
    images, labels = [], []
    for _ in range(n):
        cy, cx, r = rng.uniform(3, size - 3), rng.uniform(3, size - 3), rng.uniform(1.5, 3)
        mask = np.zeros((size, size), dtype=np.int64)
        mask[(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] = 1
        mask[rng.integers(0, size), :] = 2
        images.append(mask * 0.8 + rng.standard_normal((size, size)) * 0.3)
        labels.append(mask)
    return mg.from_numpy(np.stack(images)[:, None]).to(dtype), mg.from_numpy(np.stack(labels))


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='U-Net')
    parser.add_argument('--bilinear', action='store_true')
    parser.add_argument('--steps', type=int, default=3)
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    rng = np.random.default_rng(0)
    model = UNet(n_channels=1, n_classes=3, bilinear=args.bilinear).to(dtype)
    model = model.to(memory_format=mg.channels_last)
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    learning_rate, weight_decay, momentum, gradient_clipping = 1e-3, 1e-8, 0.999, 1.0
    optimizer = mg.optim.RMSprop(model.parameters(), lr=learning_rate, weight_decay=weight_decay, momentum=momentum)
    scheduler = mg.optim.lr_scheduler.ReduceLROnPlateau(optimizer, 'max', patience=0)  # goal: maximize Dice score
    criterion = nn.CrossEntropyLoss() if model.n_classes > 1 else nn.BCEWithLogitsLoss()
    history = []
    images_all, masks_all = masks(rng, 8, 10, dtype)
    for step in range(args.steps):
        model.train()
        images = images_all[2 * step:2 * step + 2].to(memory_format=mg.channels_last)
        true_masks = masks_all[2 * step:2 * step + 2]
        masks_pred = model(images)
        loss = criterion(masks_pred, true_masks)
        loss += dice_loss(
            F.softmax(masks_pred, dim=1).to(dtype),
            F.one_hot(true_masks, model.n_classes).permute(0, 3, 1, 2).to(dtype),
            multiclass=True
        )
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        history.append(mg.nn.utils.clip_grad_norm_(model.parameters(), gradient_clipping).item())
        optimizer.step()
        history.append(loss.item())

        # evaluate.py's Dice score on the last two images
        model.eval()
        with mg.no_grad():
            image, mask_true = images_all[6:], masks_all[6:]
            mask_pred = model(image)
            mask_true = F.one_hot(mask_true, model.n_classes).permute(0, 3, 1, 2).to(dtype)
            mask_pred = F.one_hot(mask_pred.argmax(dim=1), model.n_classes).permute(0, 3, 1, 2).to(dtype)
            dice_score = multiclass_dice_coeff(mask_pred[:, 1:], mask_true[:, 1:], reduce_batch_first=False)
        scheduler.step(dice_score)
        history.extend([dice_score.item(), optimizer.param_groups[0]['lr']])
    return history, model


if __name__ == '__main__':
    print(main()[0])
