"""The PyTorch tutorial "Neural Transfer Using PyTorch" (``advanced_source/neural_style_tutorial.py``),
ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/neural_style.py

Style transfer by optimizing the input image: ``ContentLoss`` and ``StyleLoss`` modules (a Gram matrix
``features.view(a * b, c * d)``, ``mm``, ``div``) are inserted after chosen convolutions of a
feature extractor (``add_module``, the ``Sequential`` cut by slicing), and ``LBFGS`` moves the image,
whose closure clamps it with ``input_img.data.clamp_(0, 1)``.  Made small: 16x16 images made here
(no PIL files), ``vgg_like_features()`` -- five 3x3 convolutions of 8 and 16 channels with in-place
ReLUs and max pooling, fixed weights -- instead of the downloaded VGG19's features, and 20 closure
calls (300); ``--double`` runs in float64.  The lines that differ are listed in ``README.md``.
"""

from __future__ import print_function

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.optim as optim


def image_loader(kind, imsize, dtype):
    """Instead of a picture file: a smooth (1, 3, imsize, imsize) image in [0, 1]."""
    yy, xx = np.mgrid[0:imsize, 0:imsize] / imsize
    if kind == 'style':  # stripes
        img = [0.5 + 0.5 * np.sin(9 * (xx + yy) + p) for p in (0.0, 2.0, 4.0)]
    else:  # a blob
        img = [np.exp(-((xx - 0.5) ** 2 + (yy - c) ** 2) * 8) for c in (0.3, 0.5, 0.7)]
    image = mg.tensor(np.stack(img)[None])
    return image.to(dtype)


def vgg_like_features():
    """The layers of ``models.vgg19(...).features``, fewer and narrower (weights: the test hook's)."""
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(inplace=True),
        nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2, 2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(inplace=True),
        nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2, 2),
        nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(inplace=True))


class ContentLoss(nn.Module):

    def __init__(self, target,):
        super(ContentLoss, self).__init__()
        # we 'detach' the target content from the tree used
        # to dynamically compute the gradient: this is a stated value,
        # not a variable. Otherwise the forward method of the criterion
        # will throw an error.
        self.target = target.detach()

    def forward(self, input):
        self.loss = F.mse_loss(input, self.target)
        return input


def gram_matrix(input):
    a, b, c, d = input.size()  # a=batch size(=1)
    # b=number of feature maps
    # (c,d)=dimensions of a f. map (N=c*d)

    features = input.view(a * b, c * d)  # resize F_XL into \hat F_XL

    G = mg.mm(features, features.t())  # compute the gram product

    # we 'normalize' the values of the gram matrix
    # by dividing by the number of element in each feature maps.
    return G.div(a * b * c * d)


class StyleLoss(nn.Module):

    def __init__(self, target_feature):
        super(StyleLoss, self).__init__()
        self.target = gram_matrix(target_feature).detach()

    def forward(self, input):
        G = gram_matrix(input)
        self.loss = F.mse_loss(G, self.target)
        return input


# create a module to normalize input image so we can easily put it in a
# ``nn.Sequential``
class Normalization(nn.Module):
    def __init__(self, mean, std):
        super(Normalization, self).__init__()
        # .view the mean and std to make them [C x 1 x 1] so that they can
        # directly work with image Tensor of shape [B x C x H x W].
        # B is batch size. C is number of channels. H is height and W is width.
        self.mean = mg.tensor(mean).view(-1, 1, 1)
        self.std = mg.tensor(std).view(-1, 1, 1)

    def forward(self, img):
        # normalize ``img``
        return (img - self.mean) / self.std


# desired depth layers to compute style/content losses :
content_layers_default = ['conv_4']
style_layers_default = ['conv_1', 'conv_2', 'conv_3', 'conv_4', 'conv_5']


def get_style_model_and_losses(cnn, normalization_mean, normalization_std,
                               style_img, content_img,
                               content_layers=content_layers_default,
                               style_layers=style_layers_default):
    # normalization module
    normalization = Normalization(normalization_mean, normalization_std)

    # just in order to have an iterable access to or list of content/style
    # losses
    content_losses = []
    style_losses = []

    # assuming that ``cnn`` is a ``nn.Sequential``, so we make a new ``nn.Sequential``
    # to put in modules that are supposed to be activated sequentially
    model = nn.Sequential(normalization)

    i = 0  # increment every time we see a conv
    for layer in cnn.children():
        if isinstance(layer, nn.Conv2d):
            i += 1
            name = 'conv_{}'.format(i)
        elif isinstance(layer, nn.ReLU):
            name = 'relu_{}'.format(i)
            # The in-place version doesn't play very nicely with the ``ContentLoss``
            # and ``StyleLoss`` we insert below. So we replace with out-of-place
            # ones here.
            layer = nn.ReLU(inplace=False)
        elif isinstance(layer, nn.MaxPool2d):
            name = 'pool_{}'.format(i)
        elif isinstance(layer, nn.BatchNorm2d):
            name = 'bn_{}'.format(i)
        else:
            raise RuntimeError('Unrecognized layer: {}'.format(layer.__class__.__name__))

        model.add_module(name, layer)

        if name in content_layers:
            # add content loss:
            target = model(content_img).detach()
            content_loss = ContentLoss(target)
            model.add_module("content_loss_{}".format(i), content_loss)
            content_losses.append(content_loss)

        if name in style_layers:
            # add style loss:
            target_feature = model(style_img).detach()
            style_loss = StyleLoss(target_feature)
            model.add_module("style_loss_{}".format(i), style_loss)
            style_losses.append(style_loss)

    # now we trim off the layers after the last content and style losses
    for i in range(len(model) - 1, -1, -1):
        if isinstance(model[i], ContentLoss) or isinstance(model[i], StyleLoss):
            break

    model = model[:(i + 1)]

    return model, style_losses, content_losses


def get_input_optimizer(input_img):
    # this line to show that input is a parameter that requires a gradient
    optimizer = optim.LBFGS([input_img])
    return optimizer


def run_style_transfer(cnn, normalization_mean, normalization_std,
                       content_img, style_img, input_img, num_steps=300,
                       style_weight=1000000, content_weight=1, scores=None):
    """Run the style transfer."""
    print('Building the style transfer model..')
    model, style_losses, content_losses = get_style_model_and_losses(cnn,
        normalization_mean, normalization_std, style_img, content_img)

    # We want to optimize the input and not the model parameters so we
    # update all the requires_grad fields accordingly
    input_img.requires_grad_(True)
    # We also put the model in evaluation mode, so that specific layers
    # such as dropout or batch normalization layers behave correctly.
    model.eval()
    model.requires_grad_(False)

    optimizer = get_input_optimizer(input_img)

    print('Optimizing..')
    run = [0]
    while run[0] <= num_steps:

        def closure():
            # correct the values of updated input image
            input_img.data.clamp_(0, 1)

            optimizer.zero_grad()
            model(input_img)
            style_score = 0
            content_score = 0

            for sl in style_losses:
                style_score += sl.loss
            for cl in content_losses:
                content_score += cl.loss

            style_score *= style_weight
            content_score *= content_weight

            loss = style_score + content_score
            loss.backward()

            run[0] += 1
            scores.extend([style_score.item(), content_score.item()])
            if run[0] % 50 == 0:
                print("run {}:".format(run))
                print('Style Loss : {:4f} Content Loss: {:4f}'.format(
                    style_score.item(), content_score.item()))
                print()

            return style_score + content_score

        optimizer.step(closure)

    # a last correction...
    with mg.no_grad():
        input_img.clamp_(0, 1)

    return input_img


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='Neural style transfer')
    parser.add_argument('--double', action='store_true')
    parser.add_argument('--num-steps', type=int, default=20)
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    imsize = 16
    style_img = image_loader('style', imsize, dtype)
    content_img = image_loader('content', imsize, dtype)
    assert style_img.size() == content_img.size(), \
        "we need to import style and content images of the same size"

    cnn = vgg_like_features().to(dtype).eval()
    if init is not None:  # a test hook: records or loads the starting weights
        init('cnn', cnn)
    cnn_normalization_mean = mg.tensor([0.485, 0.456, 0.406]).to(dtype)
    cnn_normalization_std = mg.tensor([0.229, 0.224, 0.225]).to(dtype)

    input_img = content_img.clone()
    scores = []
    output = run_style_transfer(cnn, cnn_normalization_mean, cnn_normalization_std,
                                content_img, style_img, input_img, num_steps=args.num_steps, scores=scores)
    return scores + [output.sum().item(), (output * output).sum().item()], cnn


if __name__ == '__main__':
    main()
