"""pytorch-grad-cam, ported (``examples/ported/grad_cam.py``), gives PyTorch's numbers:
``tests/data/make_ported_grad_cam.py`` ran the same source with the rename undone under torch 2.13.  It
exercises forward hooks that register tensor hooks on a layer's output (the gradient caught in backward,
``retain_graph=True``), ``.cpu().detach()`` of what they catch and ``detach_()`` when the CAM object is
released, ``autograd.Variable(x, requires_grad=True)`` and the input's ``.grad``, ``autograd.grad`` with
``create_graph=True`` and a Hessian-vector product through a caught gradient, a custom ``autograd.Function``
(``save_for_backward``, ``addcmul``, ``type_as``) put in place of every ``ReLU`` through ``_modules``, a layer
swapped for a module that writes into a cloned, repeated activation in place, ``UpsamplingBilinear2d``,
``view(...).max(dim=-1)[0]``, ``mg.Tensor(list)``, BatchNorm's running statistics after SGD steps, and
NumPy's SVD and bilinear resize over the caught arrays.  The float64 run is compared at float32's
tolerance: the library's maps are float32 (``np.float32``, ``torch.Tensor(scores)``) whatever the network's dtype.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_small import small_program_test  # noqa: E402

RUNS = {"cam": [], "cam_f64": ["--dtype", "float64"]}  # the generator's list
KEEP = ("bn1.", "layer1.0.bn", "layer2.0.bn", "layer2.0.downsample.1.")

test_grad_cam_matches_pytorch = small_program_test("grad_cam", RUNS, seed=51, keep=KEEP)
