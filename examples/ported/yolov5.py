"""YOLOv5: ultralytics/yolov5 (``models/common.py``'s ``Conv``, ``Bottleneck``, ``C3``, ``SPPF``, ``Focus`` and
``Concat``; ``models/yolo.py``'s ``Detect`` with ``_make_grid`` and its anchors as a buffer, ``DetectionModel``
and ``parse_model``; ``utils/loss.py``'s ``ComputeLoss``, ``FocalLoss`` and ``QFocalLoss``;
``utils/metrics.py``'s ``bbox_iou`` (CIoU) and ``box_iou`` as they were before they moved to the ultralytics
package; ``utils/general.py``'s ``xywh2xyxy`` and ``non_max_suppression``; ``utils/torch_utils.py``'s
``initialize_weights``, ``fuse_conv_and_bn``, ``smart_optimizer`` and ``ModelEMA``; ``train.py``'s warmup and
``LambdaLR`` schedule), ported to minigrad_ckpt by a mechanical rename.  AGPL-3.0, as the original.

    python examples/ported/yolov5.py --double

Made small: yolov5n's layout with ``Focus`` as its first layer (v5.0's), width 0.125, 3 classes, 64x64
synthetic images with five labelled boxes, 3 steps of nesterov SGD on batches of 2, then the EMA model's
inference, ``non_max_suppression`` and the model fused.  It exercises ``build_targets``' boolean-mask and
advanced indexing (``t.repeat((5, 1, 1))[j]``, ``torch.tensor(shape)[[3, 2, 3, 2]]``, ``pi[b, a, gj, gi]``,
``tobj[b, a, gj, gi] = iou``, ``t[range(n), tcls[i]] = self.cp``), ``BCEWithLogitsLoss(pos_weight=...)``, a
float32 loss accumulator added float64 terms in place, ``meshgrid(indexing="ij")``, ``_apply`` moving
``Detect``'s plain-list grids, ``_initialize_biases`` writing through ``bias.view(...).data``, ``ModelEMA``'s
in-place updates through ``state_dict()`` and ``np.interp``'s NumPy floats as learning rates.

Differences from the original: torchvision's ``ops.nms`` (the engine offers none) is ``reference_nms``, its
greedy rule in tensor ops; ``ModelEMA`` asks ``v.is_floating_point()`` where the original asks
``v.dtype.is_floating_point`` (a dtype here is NumPy's, docs/from-pytorch.md); ``ComputeLoss`` takes the focal
loss class as an argument (the original always uses ``FocalLoss``; QFocalLoss is swapped in by hand there);
logging, devices, DDP, AMP, thop and yaml files are gone.
"""

import argparse
import contextlib
import math
import warnings
from copy import deepcopy

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import nn


def make_divisible(x, divisor):
    if isinstance(divisor, mg.Tensor):
        divisor = int(divisor.max())
    return math.ceil(x / divisor) * divisor


def autopad(k, p=None, d=1):
    if d > 1:
        k = d * (k - 1) + 1 if isinstance(k, int) else [d * (x - 1) + 1 for x in k]
    if p is None:
        p = k // 2 if isinstance(k, int) else [x // 2 for x in k]
    return p


class Conv(nn.Module):
    default_act = nn.SiLU()

    def __init__(self, c1, c2, k=1, s=1, p=None, g=1, d=1, act=True):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, autopad(k, p, d), groups=g, dilation=d, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = self.default_act if act is True else act if isinstance(act, nn.Module) else nn.Identity()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))

    def forward_fuse(self, x):
        return self.act(self.conv(x))


class Bottleneck(nn.Module):
    def __init__(self, c1, c2, shortcut=True, g=1, e=0.5):
        super().__init__()
        c_ = int(c2 * e)
        self.cv1 = Conv(c1, c_, 1, 1)
        self.cv2 = Conv(c_, c2, 3, 1, g=g)
        self.add = shortcut and c1 == c2

    def forward(self, x):
        return x + self.cv2(self.cv1(x)) if self.add else self.cv2(self.cv1(x))


class C3(nn.Module):
    def __init__(self, c1, c2, n=1, shortcut=True, g=1, e=0.5):
        super().__init__()
        c_ = int(c2 * e)
        self.cv1 = Conv(c1, c_, 1, 1)
        self.cv2 = Conv(c1, c_, 1, 1)
        self.cv3 = Conv(2 * c_, c2, 1)
        self.m = nn.Sequential(*(Bottleneck(c_, c_, shortcut, g, e=1.0) for _ in range(n)))

    def forward(self, x):
        return self.cv3(mg.cat((self.m(self.cv1(x)), self.cv2(x)), 1))


class SPPF(nn.Module):
    def __init__(self, c1, c2, k=5):
        super().__init__()
        c_ = c1 // 2
        self.cv1 = Conv(c1, c_, 1, 1)
        self.cv2 = Conv(c_ * 4, c2, 1, 1)
        self.m = nn.MaxPool2d(kernel_size=k, stride=1, padding=k // 2)

    def forward(self, x):
        x = self.cv1(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y1 = self.m(x)
            y2 = self.m(y1)
            return self.cv2(mg.cat((x, y1, y2, self.m(y2)), 1))


class Focus(nn.Module):
    def __init__(self, c1, c2, k=1, s=1, p=None, g=1, act=True):
        super().__init__()
        self.conv = Conv(c1 * 4, c2, k, s, p, g, act=act)

    def forward(self, x):
        return self.conv(mg.cat((x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]), 1))


class Concat(nn.Module):
    def __init__(self, dimension=1):
        super().__init__()
        self.d = dimension

    def forward(self, x):
        return mg.cat(x, self.d)


class Detect(nn.Module):
    stride = None
    dynamic = False
    export = False

    def __init__(self, nc=80, anchors=(), ch=(), inplace=True):
        super().__init__()
        self.nc = nc
        self.no = nc + 5
        self.nl = len(anchors)
        self.na = len(anchors[0]) // 2
        self.grid = [mg.empty(0) for _ in range(self.nl)]
        self.anchor_grid = [mg.empty(0) for _ in range(self.nl)]
        self.register_buffer("anchors", mg.tensor(anchors).float().view(self.nl, -1, 2))
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)
        self.inplace = inplace

    def forward(self, x):
        z = []
        for i in range(self.nl):
            x[i] = self.m[i](x[i])
            bs, _, ny, nx = x[i].shape
            x[i] = x[i].view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            if not self.training:
                if self.dynamic or self.grid[i].shape[2:4] != x[i].shape[2:4]:
                    self.grid[i], self.anchor_grid[i] = self._make_grid(nx, ny, i)
                xy, wh, conf = x[i].sigmoid().split((2, 2, self.nc + 1), 4)
                xy = (xy * 2 + self.grid[i]) * self.stride[i]
                wh = (wh * 2) ** 2 * self.anchor_grid[i]
                y = mg.cat((xy, wh, conf), 4)
                z.append(y.view(bs, self.na * nx * ny, self.no))
        return x if self.training else (mg.cat(z, 1),) if self.export else (mg.cat(z, 1), x)

    def _make_grid(self, nx=20, ny=20, i=0):
        d = self.anchors[i].device
        t = self.anchors[i].dtype
        shape = 1, self.na, ny, nx, 2
        y, x = mg.arange(ny, device=d, dtype=t), mg.arange(nx, device=d, dtype=t)
        yv, xv = mg.meshgrid(y, x, indexing="ij")
        grid = mg.stack((xv, yv), 2).expand(shape) - 0.5
        anchor_grid = (self.anchors[i] * self.stride[i]).view((1, self.na, 1, 1, 2)).expand(shape)
        return grid, anchor_grid


def check_anchor_order(m):
    a = m.anchors.prod(-1).mean(-1).view(-1)
    da = a[-1] - a[0]
    ds = m.stride[-1] - m.stride[0]
    if da and (da.sign() != ds.sign()):
        m.anchors[:] = m.anchors.flip(0)


class DetectionModel(nn.Module):
    def __init__(self, cfg, ch=3, nc=None):
        super().__init__()
        self.yaml = deepcopy(cfg)
        if nc:
            self.yaml["nc"] = nc
        self.model, self.save = parse_model(deepcopy(self.yaml), ch=[ch])
        self.inplace = True
        m = self.model[-1]
        s = 256
        m.inplace = self.inplace
        m.stride = mg.tensor([s / x.shape[-2] for x in self.forward(mg.zeros(1, ch, s, s))])
        check_anchor_order(m)
        m.anchors /= m.stride.view(-1, 1, 1)
        self.stride = m.stride
        self._initialize_biases()
        initialize_weights(self)

    def forward(self, x):
        y = []
        for m in self.model:
            if m.f != -1:
                x = y[m.f] if isinstance(m.f, int) else [x if j == -1 else y[j] for j in m.f]
            x = m(x)
            y.append(x if m.i in self.save else None)
        return x

    def fuse(self):
        for m in self.model.modules():
            if isinstance(m, Conv) and hasattr(m, "bn"):
                m.conv = fuse_conv_and_bn(m.conv, m.bn)
                delattr(m, "bn")
                m.forward = m.forward_fuse
        return self

    def _apply(self, fn):
        super()._apply(fn)
        m = self.model[-1]
        if isinstance(m, Detect):
            m.stride = fn(m.stride)
            m.grid = list(map(fn, m.grid))
            if isinstance(m.anchor_grid, list):
                m.anchor_grid = list(map(fn, m.anchor_grid))
        return self

    def _initialize_biases(self, cf=None):
        m = self.model[-1]
        for mi, s in zip(m.m, m.stride):
            b = mi.bias.view(m.na, -1)
            b.data[:, 4] += math.log(8 / (640 / s) ** 2)
            b.data[:, 5 : 5 + m.nc] += math.log(0.6 / (m.nc - 0.99999)) if cf is None else mg.log(cf / cf.sum())
            mi.bias = mg.nn.Parameter(b.view(-1), requires_grad=True)


def parse_model(d, ch):
    anchors, nc, gd, gw = d["anchors"], d["nc"], d["depth_multiple"], d["width_multiple"]
    ch_mul = 8
    na = (len(anchors[0]) // 2) if isinstance(anchors, list) else anchors
    no = na * (nc + 5)
    layers, save, c2 = [], [], ch[-1]
    for i, (f, n, m, args) in enumerate(d["backbone"] + d["head"]):
        m = eval(m) if isinstance(m, str) else m
        for j, a in enumerate(args):
            with contextlib.suppress(NameError):
                args[j] = eval(a) if isinstance(a, str) else a
        n = max(round(n * gd), 1) if n > 1 else n
        if m in {Conv, Bottleneck, SPPF, Focus, C3}:
            c1, c2 = ch[f], args[0]
            if c2 != no:
                c2 = make_divisible(c2 * gw, ch_mul)
            args = [c1, c2, *args[1:]]
            if m in {C3}:
                args.insert(2, n)
                n = 1
        elif m is Concat:
            c2 = sum(ch[x] for x in f)
        elif m is Detect:
            args.append([ch[x] for x in f])
        else:
            c2 = ch[f]
        m_ = nn.Sequential(*(m(*args) for _ in range(n))) if n > 1 else m(*args)
        m_.i, m_.f = i, f
        save.extend(x % i for x in ([f] if isinstance(f, int) else f) if x != -1)
        layers.append(m_)
        if i == 0:
            ch = []
        ch.append(c2)
    return nn.Sequential(*layers), sorted(save)


# ---- utils/torch_utils.py
def initialize_weights(model):
    for m in model.modules():
        t = type(m)
        if t is nn.Conv2d:
            pass
        elif t is nn.BatchNorm2d:
            m.eps = 1e-3
            m.momentum = 0.03
        elif t in [nn.Hardswish, nn.LeakyReLU, nn.ReLU, nn.ReLU6, nn.SiLU]:
            m.inplace = True


def fuse_conv_and_bn(conv, bn):
    fusedconv = (
        nn.Conv2d(conv.in_channels, conv.out_channels, kernel_size=conv.kernel_size, stride=conv.stride,
                  padding=conv.padding, dilation=conv.dilation, groups=conv.groups, bias=True)
        .requires_grad_(False)
        .to(conv.weight.device)
    )
    w_conv = conv.weight.clone().view(conv.out_channels, -1)
    w_bn = mg.diag(bn.weight.div(mg.sqrt(bn.eps + bn.running_var)))
    fusedconv.weight.copy_(mg.mm(w_bn, w_conv).view(fusedconv.weight.shape))
    b_conv = mg.zeros(conv.weight.size(0), device=conv.weight.device) if conv.bias is None else conv.bias
    b_bn = bn.bias - bn.weight.mul(bn.running_mean).div(mg.sqrt(bn.running_var + bn.eps))
    fusedconv.bias.copy_(mg.mm(w_bn, b_conv.reshape(-1, 1)).reshape(-1) + b_bn)
    return fusedconv


def smart_optimizer(model, name="Adam", lr=0.001, momentum=0.9, decay=1e-5):
    g = [], [], []
    bn = tuple(v for k, v in nn.__dict__.items() if "Norm" in k)
    for v in model.modules():
        for p_name, p in v.named_parameters(recurse=0):
            if p_name == "bias":
                g[2].append(p)
            elif p_name == "weight" and isinstance(v, bn):
                g[1].append(p)
            else:
                g[0].append(p)
    if name == "Adam":
        optimizer = mg.optim.Adam(g[2], lr=lr, betas=(momentum, 0.999))
    elif name == "AdamW":
        optimizer = mg.optim.AdamW(g[2], lr=lr, betas=(momentum, 0.999), weight_decay=0.0)
    elif name == "RMSProp":
        optimizer = mg.optim.RMSprop(g[2], lr=lr, momentum=momentum)
    elif name == "SGD":
        optimizer = mg.optim.SGD(g[2], lr=lr, momentum=momentum, nesterov=True)
    optimizer.add_param_group({"params": g[0], "weight_decay": decay})
    optimizer.add_param_group({"params": g[1], "weight_decay": 0.0})
    return optimizer


def copy_attr(a, b, include=(), exclude=()):
    for k, v in b.__dict__.items():
        if (len(include) and k not in include) or k.startswith("_") or k in exclude:
            continue
        setattr(a, k, v)


class ModelEMA:
    def __init__(self, model, decay=0.9999, tau=2000, updates=0):
        self.ema = deepcopy(model).eval()
        self.updates = updates
        self.decay = lambda x: decay * (1 - math.exp(-x / tau))
        for p in self.ema.parameters():
            p.requires_grad_(False)

    def update(self, model):
        self.updates += 1
        d = self.decay(self.updates)
        msd = model.state_dict()
        for k, v in self.ema.state_dict().items():
            if v.is_floating_point():  # mg: a dtype is NumPy's, so v.dtype.is_floating_point is spelled on v
                v *= d
                v += (1 - d) * msd[k].detach()

    def update_attr(self, model, include=(), exclude=("process_group", "reducer")):
        copy_attr(self.ema, model, include, exclude)


# ---- utils/metrics.py
def bbox_iou(box1, box2, xywh=True, GIoU=False, DIoU=False, CIoU=False, eps=1e-7):
    if xywh:
        (x1, y1, w1, h1), (x2, y2, w2, h2) = box1.chunk(4, -1), box2.chunk(4, -1)
        w1_, h1_, w2_, h2_ = w1 / 2, h1 / 2, w2 / 2, h2 / 2
        b1_x1, b1_x2, b1_y1, b1_y2 = x1 - w1_, x1 + w1_, y1 - h1_, y1 + h1_
        b2_x1, b2_x2, b2_y1, b2_y2 = x2 - w2_, x2 + w2_, y2 - h2_, y2 + h2_
    else:
        b1_x1, b1_y1, b1_x2, b1_y2 = box1.chunk(4, -1)
        b2_x1, b2_y1, b2_x2, b2_y2 = box2.chunk(4, -1)
        w1, h1 = b1_x2 - b1_x1, (b1_y2 - b1_y1).clamp(eps)
        w2, h2 = b2_x2 - b2_x1, (b2_y2 - b2_y1).clamp(eps)
    inter = (b1_x2.minimum(b2_x2) - b1_x1.maximum(b2_x1)).clamp(0) * (
        b1_y2.minimum(b2_y2) - b1_y1.maximum(b2_y1)
    ).clamp(0)
    union = w1 * h1 + w2 * h2 - inter + eps
    iou = inter / union
    if CIoU or DIoU or GIoU:
        cw = b1_x2.maximum(b2_x2) - b1_x1.minimum(b2_x1)
        ch = b1_y2.maximum(b2_y2) - b1_y1.minimum(b2_y1)
        if CIoU or DIoU:
            c2 = cw**2 + ch**2 + eps
            rho2 = ((b2_x1 + b2_x2 - b1_x1 - b1_x2) ** 2 + (b2_y1 + b2_y2 - b1_y1 - b1_y2) ** 2) / 4
            if CIoU:
                v = (4 / math.pi**2) * (mg.atan(w2 / h2) - mg.atan(w1 / h1)).pow(2)
                with mg.no_grad():
                    alpha = v / (v - iou + (1 + eps))
                return iou - (rho2 / c2 + v * alpha)
            return iou - rho2 / c2
        c_area = cw * ch + eps
        return iou - (c_area - union) / c_area
    return iou


def box_iou(box1, box2, eps=1e-7):
    (a1, a2), (b1, b2) = box1.unsqueeze(1).chunk(2, 2), box2.unsqueeze(0).chunk(2, 2)
    inter = (mg.min(a2, b2) - mg.max(a1, b1)).clamp(0).prod(2)
    return inter / ((a2 - a1).prod(2) + (b2 - b1).prod(2) - inter + eps)


# ---- utils/general.py
def xywh2xyxy(x):
    y = x.clone()
    y[..., 0] = x[..., 0] - x[..., 2] / 2
    y[..., 1] = x[..., 1] - x[..., 3] / 2
    y[..., 2] = x[..., 0] + x[..., 2] / 2
    y[..., 3] = x[..., 1] + x[..., 3] / 2
    return y


def reference_nms(boxes, scores, iou_thres):
    """torchvision.ops.nms: keep the highest-scored box, drop those overlapping it by more than iou_thres."""
    order = scores.argsort(descending=True)
    iou = box_iou(boxes, boxes, eps=0)
    keep, suppressed = [], mg.zeros(len(boxes), dtype=mg.bool)
    for i in order.tolist():
        if suppressed[i]:
            continue
        keep.append(i)
        suppressed |= iou[i] > iou_thres
    return mg.tensor(keep, dtype=mg.long)


def non_max_suppression(prediction, conf_thres=0.25, iou_thres=0.45, classes=None, agnostic=False,
                        multi_label=False, max_det=300, nm=0):
    if isinstance(prediction, (list, tuple)):
        prediction = prediction[0]
    bs = prediction.shape[0]
    nc = prediction.shape[2] - nm - 5
    xc = prediction[..., 4] > conf_thres
    max_wh = 7680
    max_nms = 30000
    multi_label &= nc > 1
    mi = 5 + nc
    output = [mg.zeros((0, 6 + nm), device=prediction.device)] * bs
    for xi, x in enumerate(prediction):
        x = x[xc[xi]]
        if not x.shape[0]:
            continue
        x[:, 5:] *= x[:, 4:5]
        box = xywh2xyxy(x[:, :4])
        mask = x[:, mi:]
        if multi_label:
            i, j = (x[:, 5:mi] > conf_thres).nonzero(as_tuple=False).T
            x = mg.cat((box[i], x[i, 5 + j, None], j[:, None].float(), mask[i]), 1)
        else:
            conf, j = x[:, 5:mi].max(1, keepdim=True)
            x = mg.cat((box, conf, j.float(), mask), 1)[conf.view(-1) > conf_thres]
        if classes is not None:
            x = x[(x[:, 5:6] == mg.tensor(classes, device=x.device)).any(1)]
        n = x.shape[0]
        if not n:
            continue
        x = x[x[:, 4].argsort(descending=True)[:max_nms]]
        c = x[:, 5:6] * (0 if agnostic else max_wh)
        boxes, scores = x[:, :4] + c, x[:, 4]
        i = reference_nms(boxes, scores, iou_thres)
        i = i[:max_det]
        output[xi] = x[i]
    return output


# ---- utils/loss.py
def smooth_BCE(eps=0.1):
    return 1.0 - 0.5 * eps, 0.5 * eps


class FocalLoss(nn.Module):
    def __init__(self, loss_fcn, gamma=1.5, alpha=0.25):
        super().__init__()
        self.loss_fcn = loss_fcn
        self.gamma = gamma
        self.alpha = alpha
        self.reduction = loss_fcn.reduction
        self.loss_fcn.reduction = "none"

    def forward(self, pred, true):
        loss = self.loss_fcn(pred, true)
        pred_prob = mg.sigmoid(pred)
        p_t = true * pred_prob + (1 - true) * (1 - pred_prob)
        alpha_factor = true * self.alpha + (1 - true) * (1 - self.alpha)
        modulating_factor = (1.0 - p_t) ** self.gamma
        loss *= alpha_factor * modulating_factor
        if self.reduction == "mean":
            return loss.mean()
        elif self.reduction == "sum":
            return loss.sum()
        return loss


class QFocalLoss(nn.Module):
    def __init__(self, loss_fcn, gamma=1.5, alpha=0.25):
        super().__init__()
        self.loss_fcn = loss_fcn
        self.gamma = gamma
        self.alpha = alpha
        self.reduction = loss_fcn.reduction
        self.loss_fcn.reduction = "none"

    def forward(self, pred, true):
        loss = self.loss_fcn(pred, true)
        pred_prob = mg.sigmoid(pred)
        alpha_factor = true * self.alpha + (1 - true) * (1 - self.alpha)
        modulating_factor = mg.abs(true - pred_prob) ** self.gamma
        loss *= alpha_factor * modulating_factor
        if self.reduction == "mean":
            return loss.mean()
        elif self.reduction == "sum":
            return loss.sum()
        return loss


class ComputeLoss:
    sort_obj_iou = False

    def __init__(self, model, autobalance=False, focal=FocalLoss):
        device = next(model.parameters()).device
        h = model.hyp
        BCEcls = nn.BCEWithLogitsLoss(pos_weight=mg.tensor([h["cls_pw"]], device=device))
        BCEobj = nn.BCEWithLogitsLoss(pos_weight=mg.tensor([h["obj_pw"]], device=device))
        self.cp, self.cn = smooth_BCE(eps=h.get("label_smoothing", 0.0))
        g = h["fl_gamma"]
        if g > 0:
            BCEcls, BCEobj = focal(BCEcls, g), focal(BCEobj, g)
        m = model.model[-1]
        self.balance = {3: [4.0, 1.0, 0.4]}.get(m.nl, [4.0, 1.0, 0.25, 0.06, 0.02])
        self.ssi = list(m.stride).index(16) if autobalance else 0
        self.BCEcls, self.BCEobj, self.gr, self.hyp, self.autobalance = BCEcls, BCEobj, 1.0, h, autobalance
        self.na = m.na
        self.nc = m.nc
        self.nl = m.nl
        self.anchors = m.anchors
        self.device = device

    def __call__(self, p, targets):
        lcls = mg.zeros(1, device=self.device)
        lbox = mg.zeros(1, device=self.device)
        lobj = mg.zeros(1, device=self.device)
        tcls, tbox, indices, anchors = self.build_targets(p, targets)
        for i, pi in enumerate(p):
            b, a, gj, gi = indices[i]
            tobj = mg.zeros(pi.shape[:4], dtype=pi.dtype, device=self.device)
            if n := b.shape[0]:
                pxy, pwh, _, pcls = pi[b, a, gj, gi].split((2, 2, 1, self.nc), 1)
                pxy = pxy.sigmoid() * 2 - 0.5
                pwh = (pwh.sigmoid() * 2) ** 2 * anchors[i]
                pbox = mg.cat((pxy, pwh), 1)
                iou = bbox_iou(pbox, tbox[i], CIoU=True).squeeze()
                lbox += (1.0 - iou).mean()
                iou = iou.detach().clamp(0).type(tobj.dtype)
                if self.sort_obj_iou:
                    j = iou.argsort()
                    b, a, gj, gi, iou = b[j], a[j], gj[j], gi[j], iou[j]
                if self.gr < 1:
                    iou = (1.0 - self.gr) + self.gr * iou
                tobj[b, a, gj, gi] = iou
                if self.nc > 1:
                    t = mg.full_like(pcls, self.cn, device=self.device)
                    t[range(n), tcls[i]] = self.cp
                    lcls += self.BCEcls(pcls, t)
            obji = self.BCEobj(pi[..., 4], tobj)
            lobj += obji * self.balance[i]
            if self.autobalance:
                self.balance[i] = self.balance[i] * 0.9999 + 0.0001 / obji.detach().item()
        if self.autobalance:
            self.balance = [x / self.balance[self.ssi] for x in self.balance]
        lbox *= self.hyp["box"]
        lobj *= self.hyp["obj"]
        lcls *= self.hyp["cls"]
        bs = tobj.shape[0]
        return (lbox + lobj + lcls) * bs, mg.cat((lbox, lobj, lcls)).detach()

    def build_targets(self, p, targets):
        na, nt = self.na, targets.shape[0]
        tcls, tbox, indices, anch = [], [], [], []
        gain = mg.ones(7, device=self.device)
        ai = mg.arange(na, device=self.device).float().view(na, 1).repeat(1, nt)
        targets = mg.cat((targets.repeat(na, 1, 1), ai[..., None]), 2)
        g = 0.5
        off = mg.tensor([[0, 0], [1, 0], [0, 1], [-1, 0], [0, -1]], device=self.device).float() * g
        for i in range(self.nl):
            anchors, shape = self.anchors[i], p[i].shape
            gain[2:6] = mg.tensor(shape)[[3, 2, 3, 2]]
            t = targets * gain
            if nt:
                r = t[..., 4:6] / anchors[:, None]
                j = mg.max(r, 1 / r).max(2)[0] < self.hyp["anchor_t"]
                t = t[j]
                gxy = t[:, 2:4]
                gxi = gain[[2, 3]] - gxy
                j, k = ((gxy % 1 < g) & (gxy > 1)).T
                left, right = ((gxi % 1 < g) & (gxi > 1)).T
                j = mg.stack((mg.ones_like(j), j, k, left, right))
                t = t.repeat((5, 1, 1))[j]
                offsets = (mg.zeros_like(gxy)[None] + off[:, None])[j]
            else:
                t = targets[0]
                offsets = 0
            bc, gxy, gwh, a = t.chunk(4, 1)
            a, (b, c) = a.long().view(-1), bc.long().T
            gij = (gxy - offsets).long()
            gi, gj = gij.T
            indices.append((b, a, gj.clamp_(0, shape[2] - 1), gi.clamp_(0, shape[3] - 1)))
            tbox.append(mg.cat((gxy - gij, gwh), 1))
            anch.append(anchors[a])
            tcls.append(c)
        return tcls, tbox, indices, anch


CFG = dict(
    nc=3, depth_multiple=0.33, width_multiple=0.125,
    anchors=[[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119], [116, 90, 156, 198, 373, 326]],
    backbone=[[-1, 1, "Focus", [64, 3]], [-1, 1, "Conv", [128, 3, 2]], [-1, 3, "C3", [128]],
              [-1, 1, "Conv", [256, 3, 2]], [-1, 6, "C3", [256]], [-1, 1, "Conv", [512, 3, 2]],
              [-1, 9, "C3", [512]], [-1, 1, "Conv", [1024, 3, 2]], [-1, 3, "C3", [1024]], [-1, 1, "SPPF", [1024, 5]]],
    head=[[-1, 1, "Conv", [512, 1, 1]], [-1, 1, "nn.Upsample", [None, 2, "nearest"]], [[-1, 6], 1, "Concat", [1]],
          [-1, 3, "C3", [512, False]], [-1, 1, "Conv", [256, 1, 1]], [-1, 1, "nn.Upsample", [None, 2, "nearest"]],
          [[-1, 4], 1, "Concat", [1]], [-1, 3, "C3", [256, False]], [-1, 1, "Conv", [256, 3, 2]],
          [[-1, 14], 1, "Concat", [1]], [-1, 3, "C3", [512, False]], [-1, 1, "Conv", [512, 3, 2]],
          [[-1, 10], 1, "Concat", [1]], [-1, 3, "C3", [1024, False]], [[17, 20, 23], 1, "Detect", ["nc", "anchors"]]],
)
HYP = dict(lr0=0.01, lrf=0.01, momentum=0.937, weight_decay=0.0005, warmup_epochs=1.0, warmup_momentum=0.8,
           warmup_bias_lr=0.1, box=0.05, cls=0.5, cls_pw=1.0, obj=1.0, obj_pw=1.0, anchor_t=4.0, fl_gamma=0.0,
           label_smoothing=0.1)


def synthetic_batch(rng, bs, size=64):
    """Images of noise with 0-3 painted boxes each, and YOLO labels (image, class, x, y, w, h; normalized)."""
    images = rng.random((bs, 3, size, size)) * 0.2
    labels = []
    for b in range(bs):
        for _ in range(rng.integers(1, 4)):
            w, h = rng.uniform(0.08, 0.6, 2)
            x, y = rng.uniform(w / 2, 1 - w / 2), rng.uniform(h / 2, 1 - h / 2)
            c = int(rng.integers(0, 3))
            images[b, c, int((y - h / 2) * size):int((y + h / 2) * size), int((x - w / 2) * size):int((x + w / 2) * size)] = 1.0
            labels.append([b, c, x, y, w, h])
    return images, np.array(labels)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="YOLOv5")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--double", action="store_true")
    parser.add_argument("--focal", choices=["none", "focal", "qfocal"], default="none")
    args = parser.parse_args(argv)
    dtype = mg.float64 if args.double else mg.float32
    rng = np.random.default_rng(0)
    model = DetectionModel(deepcopy(CFG)).to(dtype)
    if init is not None:  # a test hook: loads the starting weights (the anchors kept as built)
        init("model", model)
        for m in model.modules():  # drawn running variances may be negative: start them as BatchNorm does
            if isinstance(m, nn.BatchNorm2d):
                m.reset_running_stats()
    hyp = dict(HYP, fl_gamma=0.0 if args.focal == "none" else 1.5)
    model.hyp = hyp
    optimizer = smart_optimizer(model, "SGD", hyp["lr0"], hyp["momentum"], hyp["weight_decay"])
    lf = lambda x: (1 - x / args.steps) * (1.0 - hyp["lrf"]) + hyp["lrf"]  # noqa: E731
    scheduler = mg.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=lf)
    ema = ModelEMA(model)
    compute_loss = ComputeLoss(model, focal=QFocalLoss if args.focal == "qfocal" else FocalLoss)
    history, nw = [], 2
    for step in range(args.steps):  # one batch an "epoch"
        model.train()
        if step <= nw:
            for j, x in enumerate(optimizer.param_groups):
                x["lr"] = np.interp(step, [0, nw], [hyp["warmup_bias_lr"] if j == 0 else 0.0, x["initial_lr"] * lf(step)])
                x["momentum"] = np.interp(step, [0, nw], [hyp["warmup_momentum"], hyp["momentum"]])
        images, labels = synthetic_batch(rng, 2)
        pred = model(mg.tensor(images).to(dtype))
        loss, loss_items = compute_loss(pred, mg.tensor(labels).to(dtype))
        loss.backward()
        norm = mg.nn.utils.clip_grad_norm_(model.parameters(), max_norm=10.0)
        optimizer.step()
        optimizer.zero_grad()
        ema.update(model)
        scheduler.step()
        history += [loss.item(), *loss_items.tolist(), float(norm), float(optimizer.param_groups[0]["lr"])]
    ema.update_attr(model, include=["yaml", "nc", "hyp", "stride"])
    images, labels = synthetic_batch(rng, 2)
    with mg.no_grad():
        out, train_out = ema.ema(mg.tensor(images).to(dtype))
        val_loss = compute_loss(train_out, mg.tensor(labels).to(dtype))[1]
    history += [float(out.sum()), float(out[..., 4].max()), *val_loss.tolist()]
    for conf, multi_label in ((0.001, False), (0.001, True), (0.002, False)):
        for det in non_max_suppression(out, conf, 0.6, multi_label=multi_label, max_det=50):
            history.append(len(det))
            if args.double:  # float32 scores tie, and which of the tied boxes an unstable argsort puts first
                history += [float(det[:, :4].sum()), float(det[:, 4].sum()), float(det[:, 5].sum())]  # is unspecified
    with mg.no_grad():  # fuse_conv_and_bn's zero conv bias is float32: a float64 model cannot be fused
        fused = deepcopy(ema.ema).float().fuse()(mg.tensor(images).float())[0]
    history.append(float(fused.sum()))
    return history, model


if __name__ == "__main__":
    history, _ = main()
    print(history)
