"""PyTorch's "Hooks for autograd saved tensors" tutorial (pytorch/tutorials
``intermediate_source/autograd_saved_tensors_hooks_tutorial.py``), ported to minigrad_ckpt by a
mechanical rename.

    python examples/ported/saved_tensors_hooks.py

What the tutorial shows, in its order: the values a node saved (``grad_fn._saved_self``,
``_saved_result``: a leaf comes back as itself, an output as an equal tensor that is not it), hooks on
one saved value (``grad_fn._raw_saved_self.register_hooks``), default hooks for every saved value
(``saved_tensors_hooks``: the tutorial's prints, ``x * 4`` / ``x / 4``, an index into a list, a copy on
the CPU), ``save_on_cpu`` inside a model's ``forward``, and saving to disk (``torch.save`` /
``torch.load`` of a ``SelfDeletingTempFile``, every tensor or only the large ones).  Made small: the
tutorial's ``torchvision`` ResNet-18 becomes ``Net``, a small convolutional network trained for
``--steps`` SGD steps under each way of keeping what backward needs (none, ``save_on_cpu``, disk,
disk above a threshold), which must give the same losses and weights; the tutorial's prints are kept
as lines of ``main``'s returned log.  The lines that differ from the tutorial are listed in
``README.md``.
"""

import argparse
import os
import tempfile
import uuid

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn

tmp_dir_obj = tempfile.TemporaryDirectory()
tmp_dir = tmp_dir_obj.name
log = []


def show(*args):
    log.append(" ".join(str(a) for a in args))


def saved_values():
    # "Saved tensors": a leaf saved as the input of pow comes back as itself
    a = mg.randn(5, requires_grad=True)
    y = a.pow(2)
    show(y.grad_fn._saved_self.equal(a), y.grad_fn._saved_self is a)
    # exp keeps its output: an equal tensor, not the output itself
    y = a.exp()
    show(y.equal(y.grad_fn._saved_result), y is y.grad_fn._saved_result)
    return a


def hooks_on_one_saved_tensor():
    events = []

    def pack_hook(x):
        events.append("Packing")
        return x

    def unpack_hook(x):
        events.append("Unpacking")
        return x

    a = mg.randn(5, requires_grad=True)
    y = a.pow(2)
    y.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)
    show(*events)
    y.sum().backward()
    show(*events)
    show(a.grad.equal(2 * a))
    try:
        y.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)
    except RuntimeError as error:
        show("refused:", str(error).split(".")[0])


def default_hooks():
    events = []

    def pack_hook(x):
        events.append(f"Packing {x.tolist()}")
        return x

    def unpack_hook(x):
        events.append(f"Unpacking {x.tolist()}")
        return x

    a = mg.ones(5, requires_grad=True)
    b = mg.ones(5, requires_grad=True) * 2
    with mg.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = a * b
    y.sum().backward()
    show(*events)

    def pack_times_four(x):
        return x * 4

    def unpack_div_four(x):
        return x / 4

    x = mg.randn(5, requires_grad=True)
    with mg.autograd.graph.saved_tensors_hooks(pack_times_four, unpack_div_four):
        y = x.pow(2)
    y.sum().backward()
    show(mg.allclose(x.grad, 2 * x))

    storage = []

    def pack(x):
        storage.append(x)
        return len(storage) - 1

    def unpack(x):
        return storage[x]

    x = mg.randn(5, requires_grad=True)
    with mg.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x * x
    y.sum().backward()
    show(x.grad.equal(2 * x), len(storage))

    def pack_hook_cpu(x):
        return (x.device, x.cpu())

    def unpack_hook_cpu(packed):
        device, tensor = packed
        return tensor.to(device)

    x = mg.randn(5, requires_grad=True)
    with mg.autograd.graph.saved_tensors_hooks(pack_hook_cpu, unpack_hook_cpu):
        y = x * x
    y.sum().backward()
    show(mg.allclose(x.grad, (2 * x)))


class SelfDeletingTempFile():
    def __init__(self):
        self.name = os.path.join(tmp_dir, str(uuid.uuid4()))

    def __del__(self):
        os.remove(self.name)


def pack_hook_disk(tensor):
    temp_file = SelfDeletingTempFile()
    mg.save(tensor, temp_file.name)
    return temp_file


def unpack_hook_disk(temp_file):
    return mg.load(temp_file.name, weights_only=True)


SAVE_ON_DISK_THRESHOLD = 1000


def pack_hook_large(tensor):
    if tensor.numel() < SAVE_ON_DISK_THRESHOLD:
        return tensor
    temp_file = SelfDeletingTempFile()
    mg.save(tensor, temp_file.name)
    return temp_file


def unpack_hook_large(tensor_or_sctf):
    if isinstance(tensor_or_sctf, mg.Tensor):
        return tensor_or_sctf
    return mg.load(tensor_or_sctf.name)


class Net(nn.Module):
    """The tutorial's ResNet-18, made small: two convolutions, batch norm, a linear head."""

    def __init__(self, keep="none"):
        super().__init__()
        self.keep = keep
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 8 * 8, 4)

    def body(self, x):
        x = self.bn1(self.conv1(x)).relu()
        x = (self.conv2(x) + x).tanh()
        return self.fc(x.flatten(1))

    def forward(self, x):
        if self.keep == "cpu":
            with mg.autograd.graph.save_on_cpu(pin_memory=True):
                return self.body(x)
        if self.keep == "disk":
            with mg.autograd.graph.saved_tensors_hooks(pack_hook_disk, unpack_hook_disk):
                return self.body(x)
        if self.keep == "large":
            with mg.autograd.graph.saved_tensors_hooks(pack_hook_large, unpack_hook_large):
                return self.body(x)
        return self.body(x)


def train(keep, steps, init, dtype, start=None):
    mg.manual_seed(0)
    model = Net(keep).to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init(keep, model)
    if start is not None:  # every way of keeping the saved values starts from the same weights
        model.load_state_dict(start)
    start = {k: v.clone() for k, v in model.state_dict().items()}
    optimizer = mg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = mg.linspace(-1, 1, 4 * 3 * 8 * 8, dtype=dtype).reshape(4, 3, 8, 8).sin()
    target = mg.tensor([0, 1, 2, 3])
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, model, start


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="saved tensors hooks")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    dtype = mg.float64 if args.double else mg.float32
    log.clear()
    mg.manual_seed(0)
    saved_values()
    hooks_on_one_saved_tensor()
    default_hooks()
    history, models, start = [], [], None
    for keep in ("none", "cpu", "disk", "large"):
        losses, model, start = train(keep, args.steps, init, dtype, start)
        history += losses
        models.append(model)
    show("files left:", len(os.listdir(tmp_dir)))
    for line in log:
        print(line)
    return history, tuple(models)


if __name__ == "__main__":
    main()
