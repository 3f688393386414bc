"""torchvision's building blocks and detection losses, ported (pytorch/vision, BSD-3-Clause): a small
detector built from ``ops/misc.py`` (``Conv2dNormActivation``, ``SqueezeExcitation``),
``ops/stochastic_depth.py`` (``StochasticDepth``, and the ``torch.fx.wrap`` mark the file makes as it
loads), ``models/densenet.py`` (the memory-efficient dense layer: its bottleneck under
``torch.utils.checkpoint``), ``models/shufflenetv2.py`` (``channel_shuffle``, ``InvertedResidual``),
``models/_utils.py`` (``_make_divisible``), trained with ``ops/focal_loss.py``'s ``sigmoid_focal_loss``
and ``ops/boxes.py``'s ``generalized_box_iou`` on synthetic images, one bright box each. The classes are
torchvision's text after the rename (docstrings and TorchScript overloads left out).
"""
import argparse
from collections.abc import Sequence
from typing import Callable, Optional, Union

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.fx
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.utils.checkpoint as cp
from minigrad_ckpt import Tensor


def _make_ntuple(x, n):  # torchvision/utils.py
    if isinstance(x, Sequence):
        return tuple(x)
    return tuple([x] * n)


def _make_divisible(v: float, divisor: int, min_value: Optional[int] = None) -> int:  # models/_utils.py
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    # Make sure that round down does not go down by more than 10%.
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class Conv2dNormActivation(mg.nn.Sequential):  # ops/misc.py's ConvNormActivation
    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Union[int, tuple[int, ...]] = 3,
        stride: Union[int, tuple[int, ...]] = 1,
        padding: Optional[Union[int, tuple[int, ...], str]] = None,
        groups: int = 1,
        norm_layer: Optional[Callable[..., mg.nn.Module]] = mg.nn.BatchNorm2d,
        activation_layer: Optional[Callable[..., mg.nn.Module]] = mg.nn.ReLU,
        dilation: Union[int, tuple[int, ...]] = 1,
        inplace: Optional[bool] = True,
        bias: Optional[bool] = None,
        conv_layer: Callable[..., mg.nn.Module] = mg.nn.Conv2d,
    ) -> None:
        if padding is None:
            if isinstance(kernel_size, int) and isinstance(dilation, int):
                padding = (kernel_size - 1) // 2 * dilation
            else:
                _conv_dim = len(kernel_size) if isinstance(kernel_size, Sequence) else len(dilation)
                kernel_size = _make_ntuple(kernel_size, _conv_dim)
                dilation = _make_ntuple(dilation, _conv_dim)
                padding = tuple((kernel_size[i] - 1) // 2 * dilation[i] for i in range(_conv_dim))
        if bias is None:
            bias = norm_layer is None
        layers = [conv_layer(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation,
                             groups=groups, bias=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            params = {} if inplace is None else {"inplace": inplace}
            layers.append(activation_layer(**params))
        super().__init__(*layers)
        self.out_channels = out_channels


class SqueezeExcitation(mg.nn.Module):  # ops/misc.py
    def __init__(
        self,
        input_channels: int,
        squeeze_channels: int,
        activation: Callable[..., mg.nn.Module] = mg.nn.ReLU,
        scale_activation: Callable[..., mg.nn.Module] = mg.nn.Sigmoid,
    ) -> None:
        super().__init__()
        self.avgpool = mg.nn.AdaptiveAvgPool2d(1)
        self.fc1 = mg.nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = mg.nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def _scale(self, input: Tensor) -> Tensor:
        scale = self.avgpool(input)
        scale = self.fc1(scale)
        scale = self.activation(scale)
        scale = self.fc2(scale)
        return self.scale_activation(scale)

    def forward(self, input: Tensor) -> Tensor:
        scale = self._scale(input)
        return scale * input


def stochastic_depth(input: Tensor, p: float, mode: str, training: bool = True) -> Tensor:  # ops/stochastic_depth.py
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}")
    if mode not in ["batch", "row"]:
        raise ValueError(f"mode has to be either 'batch' or 'row', but got {mode}")
    if not training or p == 0.0:
        return input

    survival_rate = 1.0 - p
    if mode == "row":
        size = [input.shape[0]] + [1] * (input.ndim - 1)
    else:
        size = [1] * input.ndim
    noise = mg.empty(size, dtype=input.dtype, device=input.device)
    noise = noise.bernoulli_(survival_rate)
    if survival_rate > 0.0:
        noise.div_(survival_rate)
    return input * noise


mg.fx.wrap("stochastic_depth")


class StochasticDepth(nn.Module):
    def __init__(self, p: float, mode: str) -> None:
        super().__init__()
        self.p = p
        self.mode = mode

    def forward(self, input: Tensor) -> Tensor:
        return stochastic_depth(input, self.p, self.mode, self.training)

    def __repr__(self) -> str:
        s = f"{self.__class__.__name__}(p={self.p}, mode={self.mode})"
        return s


class _DenseLayer(nn.Module):  # models/densenet.py
    def __init__(
        self, num_input_features: int, growth_rate: int, bn_size: int, drop_rate: float, memory_efficient: bool = False
    ) -> None:
        super().__init__()
        self.norm1 = nn.BatchNorm2d(num_input_features)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv1 = nn.Conv2d(num_input_features, bn_size * growth_rate, kernel_size=1, stride=1, bias=False)

        self.norm2 = nn.BatchNorm2d(bn_size * growth_rate)
        self.relu2 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, stride=1, padding=1, bias=False)

        self.drop_rate = float(drop_rate)
        self.memory_efficient = memory_efficient

    def bn_function(self, inputs: list[Tensor]) -> Tensor:
        concated_features = mg.cat(inputs, 1)
        bottleneck_output = self.conv1(self.relu1(self.norm1(concated_features)))  # noqa: T484
        return bottleneck_output

    def any_requires_grad(self, input: list[Tensor]) -> bool:
        for tensor in input:
            if tensor.requires_grad:
                return True
        return False

    @mg.jit.unused  # noqa: T484
    def call_checkpoint_bottleneck(self, input: list[Tensor]) -> Tensor:
        def closure(*inputs):
            return self.bn_function(inputs)

        return cp.checkpoint(closure, *input, use_reentrant=False)

    def forward(self, input: Tensor) -> Tensor:  # noqa: F811
        if isinstance(input, Tensor):
            prev_features = [input]
        else:
            prev_features = input

        if self.memory_efficient and self.any_requires_grad(prev_features):
            if mg.jit.is_scripting():
                raise Exception("Memory Efficient not supported in JIT")

            bottleneck_output = self.call_checkpoint_bottleneck(prev_features)
        else:
            bottleneck_output = self.bn_function(prev_features)

        new_features = self.conv2(self.relu2(self.norm2(bottleneck_output)))
        if self.drop_rate > 0:
            new_features = F.dropout(new_features, p=self.drop_rate, training=self.training)
        return new_features


class _DenseBlock(nn.ModuleDict):
    _version = 2

    def __init__(self, num_layers: int, num_input_features: int, bn_size: int, growth_rate: int,
                 drop_rate: float, memory_efficient: bool = False) -> None:
        super().__init__()
        for i in range(num_layers):
            layer = _DenseLayer(
                num_input_features + i * growth_rate,
                growth_rate=growth_rate,
                bn_size=bn_size,
                drop_rate=drop_rate,
                memory_efficient=memory_efficient,
            )
            self.add_module("denselayer%d" % (i + 1), layer)

    def forward(self, init_features: Tensor) -> Tensor:
        features = [init_features]
        for name, layer in self.items():
            new_features = layer(features)
            features.append(new_features)
        return mg.cat(features, 1)


class _Transition(nn.Sequential):
    def __init__(self, num_input_features: int, num_output_features: int) -> None:
        super().__init__()
        self.norm = nn.BatchNorm2d(num_input_features)
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(num_input_features, num_output_features, kernel_size=1, stride=1, bias=False)
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)


def channel_shuffle(x: Tensor, groups: int) -> Tensor:  # models/shufflenetv2.py
    batchsize, num_channels, height, width = x.size()
    channels_per_group = num_channels // groups

    # reshape
    x = x.view(batchsize, groups, channels_per_group, height, width)

    x = mg.transpose(x, 1, 2).contiguous()

    # flatten
    x = x.view(batchsize, num_channels, height, width)

    return x


class InvertedResidual(nn.Module):
    def __init__(self, inp: int, oup: int, stride: int) -> None:
        super().__init__()

        if not (1 <= stride <= 3):
            raise ValueError("illegal stride value")
        self.stride = stride

        branch_features = oup // 2
        if (self.stride == 1) and (inp != branch_features << 1):
            raise ValueError(
                f"Invalid combination of stride {stride}, inp {inp} and oup {oup} values. If stride == 1 then inp should be equal to oup // 2 << 1."
            )

        if self.stride > 1:
            self.branch1 = nn.Sequential(
                self.depthwise_conv(inp, inp, kernel_size=3, stride=self.stride, padding=1),
                nn.BatchNorm2d(inp),
                nn.Conv2d(inp, branch_features, kernel_size=1, stride=1, padding=0, bias=False),
                nn.BatchNorm2d(branch_features),
                nn.ReLU(inplace=True),
            )
        else:
            self.branch1 = nn.Sequential()

        self.branch2 = nn.Sequential(
            nn.Conv2d(
                inp if (self.stride > 1) else branch_features,
                branch_features,
                kernel_size=1,
                stride=1,
                padding=0,
                bias=False,
            ),
            nn.BatchNorm2d(branch_features),
            nn.ReLU(inplace=True),
            self.depthwise_conv(branch_features, branch_features, kernel_size=3, stride=self.stride, padding=1),
            nn.BatchNorm2d(branch_features),
            nn.Conv2d(branch_features, branch_features, kernel_size=1, stride=1, padding=0, bias=False),
            nn.BatchNorm2d(branch_features),
            nn.ReLU(inplace=True),
        )

    @staticmethod
    def depthwise_conv(
        i: int, o: int, kernel_size: int, stride: int = 1, padding: int = 0, bias: bool = False
    ) -> nn.Conv2d:
        return nn.Conv2d(i, o, kernel_size, stride, padding, bias=bias, groups=i)

    def forward(self, x: Tensor) -> Tensor:
        if self.stride == 1:
            x1, x2 = x.chunk(2, dim=1)
            out = mg.cat((x1, self.branch2(x2)), dim=1)
        else:
            out = mg.cat((self.branch1(x), self.branch2(x)), dim=1)

        out = channel_shuffle(out, 2)

        return out


def _upcast(t: Tensor) -> Tensor:  # ops/_utils.py
    # Protects from numerical overflows in multiplications by upcasting to the equivalent higher type
    if t.is_floating_point():
        return t if t.dtype in (mg.float32, mg.float64) else t.float()
    else:
        return t if t.dtype in (mg.int32, mg.int64) else t.int()


def _box_cxcywh_to_xyxy(boxes: Tensor) -> Tensor:  # ops/_box_convert.py
    # We need to change all 4 of them so some temporary variable is needed.
    cx, cy, w, h = boxes.unbind(-1)
    x1 = cx - 0.5 * w
    y1 = cy - 0.5 * h
    x2 = cx + 0.5 * w
    y2 = cy + 0.5 * h

    boxes = mg.stack((x1, y1, x2, y2), dim=-1)

    return boxes


def box_area(boxes: Tensor, fmt: str = "xyxy") -> Tensor:  # ops/boxes.py (its "xyxy" case)
    boxes = _upcast(boxes)
    area = (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])
    return area


def _box_inter_union(boxes1: Tensor, boxes2: Tensor, fmt: str = "xyxy") -> tuple[Tensor, Tensor]:
    area1 = box_area(boxes1, fmt=fmt)
    area2 = box_area(boxes2, fmt=fmt)

    lt = mg.max(boxes1[..., None, :2], boxes2[..., None, :, :2])  # [...,N,M,2]
    rb = mg.min(boxes1[..., None, 2:], boxes2[..., None, :, 2:])  # [...,N,M,2]

    wh = _upcast(rb - lt).clamp(min=0)  # [N,M,2]
    inter = wh[..., 0] * wh[..., 1]  # [N,M]

    union = area1[..., None] + area2[..., None, :] - inter

    return inter, union


def box_iou(boxes1: Tensor, boxes2: Tensor, fmt: str = "xyxy") -> Tensor:
    inter, union = _box_inter_union(boxes1, boxes2, fmt=fmt)
    iou = inter / union
    return iou


def generalized_box_iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    inter, union = _box_inter_union(boxes1, boxes2)
    iou = inter / union

    lti = mg.min(boxes1[..., None, :2], boxes2[..., None, :, :2])
    rbi = mg.max(boxes1[..., None, 2:], boxes2[..., None, :, 2:])

    whi = _upcast(rbi - lti).clamp(min=0)  # [N,M,2]
    areai = whi[..., 0] * whi[..., 1]

    return iou - (areai - union) / areai


def sigmoid_focal_loss(inputs: mg.Tensor, targets: mg.Tensor, alpha: float = 0.25, gamma: float = 2,
                       reduction: str = "none") -> mg.Tensor:  # ops/focal_loss.py
    if not (0 <= alpha <= 1) and alpha != -1:
        raise ValueError(f"Invalid alpha value: {alpha}. alpha must be in the range [0,1] or -1 for ignore.")
    p = mg.sigmoid(inputs)
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)

    if alpha >= 0:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        loss = alpha_t * loss

    # Check reduction option and return loss accordingly
    if reduction == "none":
        pass
    elif reduction == "mean":
        loss = loss.mean()
    elif reduction == "sum":
        loss = loss.sum()
    else:
        raise ValueError(
            f"Invalid Value for arg 'reduction': '{reduction} \n Supported reduction modes: 'none', 'mean', 'sum'"
        )
    return loss


# ---- the program: a tiny one-box detector from those blocks (not in torchvision) ----

class TinyDetector(nn.Module):
    def __init__(self, num_classes=3, memory_efficient=True, stochastic_depth_prob=0.0):
        super().__init__()
        self.stem = Conv2dNormActivation(3, 16, stride=2)
        self.dense = _DenseBlock(2, 16, bn_size=2, growth_rate=8, drop_rate=0.0, memory_efficient=memory_efficient)
        self.transition = _Transition(32, 16)
        self.shuffle = nn.Sequential(InvertedResidual(16, 32, 2), InvertedResidual(32, 32, 1))
        self.se = SqueezeExcitation(32, _make_divisible(32 // 4, 8), scale_activation=nn.Hardsigmoid)
        self.drop_path = StochasticDepth(stochastic_depth_prob, "row")
        self.head = nn.Linear(32, num_classes + 4)
        self.num_classes = num_classes

    def forward(self, x):
        x = self.shuffle(self.transition(self.dense(self.stem(x))))
        x = x + self.drop_path(self.se(x))
        out = self.head(mg.flatten(F.adaptive_avg_pool2d(x, 1), 1))
        logits, box = out[:, :self.num_classes], out[:, self.num_classes:]
        return logits, _box_cxcywh_to_xyxy(mg.sigmoid(box))


def synthetic_boxes(rng, n, size=32, num_classes=3):
    """Images of noise with one bright box in the colour channel of its class; boxes in [0, 1] xyxy."""
    images = rng.normal(0.0, 0.1, (n, 3, size, size))
    labels = rng.integers(0, num_classes, n)
    boxes = np.zeros((n, 4))
    for i in range(n):
        w, h = rng.integers(6, 16, 2)
        x0, y0 = rng.integers(0, size - w), rng.integers(0, size - h)
        images[i, labels[i], y0:y0 + h, x0:x0 + w] += 1.0
        boxes[i] = (x0 / size, y0 / size, (x0 + w) / size, (y0 + h) / size)
    return images, labels, boxes


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='torchvision blocks')
    parser.add_argument('--steps', type=int, default=4)
    parser.add_argument('--double', action='store_true')
    parser.add_argument('--plain', action='store_true', help='the dense layers without checkpointing')
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    rng = np.random.default_rng(0)
    model = TinyDetector(memory_efficient=not args.plain).to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    optimizer = mg.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    images, labels, boxes = synthetic_boxes(rng, 8)
    x, y_box = mg.tensor(images).to(dtype), mg.tensor(boxes).to(dtype)
    y_cls = F.one_hot(mg.tensor(labels), 3).to(dtype)
    history = []
    model.train()
    for _ in range(args.steps):
        optimizer.zero_grad()
        logits, pred = model(x)
        cls_loss = sigmoid_focal_loss(logits, y_cls, reduction="mean")
        giou_loss = (1 - mg.diag(generalized_box_iou(pred, y_box))).mean()
        loss = cls_loss + giou_loss
        loss.backward()
        optimizer.step()
        with mg.no_grad():
            history += [cls_loss.item(), giou_loss.item(), box_iou(pred, y_box).diag().mean().item()]
    return history, model


if __name__ == '__main__':
    history, _ = main()
    print(history)
