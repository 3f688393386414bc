"""Naming a GPU is not using one: ``mg.device("cuda:0")`` on a machine without CuPy or a GPU is
a device (PyTorch's ``torch.device("cuda:0")`` on a CPU-only build is a descriptor too), so
``def gpu(i): return mg.device(f"cuda:{i}")`` and a device kept in a config run; every use of it
-- a tensor made there, moved there, a module moved there, a block with it as the default --
is the RuntimeError naming what is missing."""
import copy
import pickle

import pytest

import minigrad_ckpt as mg

pytestmark = pytest.mark.skipif(mg.cuda.is_available(), reason="a CUDA GPU is usable here")


def test_a_gpu_can_be_named_kept_compared_and_pickled():
    gpus = [mg.device(f"cuda:{i}") for i in range(3)]       # (d2l's ``gpu(i)`` for three GPUs)
    assert [str(d) for d in gpus] == ["cuda:0", "cuda:1", "cuda:2"]
    assert gpus[0].type == "cuda" and gpus[1].index == 1 and repr(gpus[2]) == "device(type='cuda', index=2)"
    assert gpus[0] == mg.device("cuda", 0) == "cuda:0" and gpus[0] != gpus[1] and gpus[0] != mg.device("cpu")
    assert mg.device("cpu") != "cuda:0" and mg.ones(2).device != "cuda"
    assert repr(mg.device("cpu")) == "device(type='cpu')"              # (PyTorch's reprs)
    assert pickle.loads(pickle.dumps(gpus[1])) is gpus[1] and copy.deepcopy(gpus[1]) is gpus[1]
    assert {gpus[0]: 1}[mg.device("cuda:0")] == 1


@pytest.mark.parametrize("use", [
    lambda d: mg.zeros(2, device=d),
    lambda d: mg.tensor([1.0], device=d),
    lambda d: mg.ones(2).to(d),
    lambda d: mg.ones(2).to(d, mg.float32),
    lambda d: mg.ones(2).cuda(),
    lambda d: mg.nn.Linear(2, 2).to(d),
    lambda d: mg.randn(3, device=d),
    lambda d: mg.ones(2, requires_grad=True).to(d).sum().backward(),
], ids=["zeros", "tensor", "to", "to-dtype", "cuda()", "module.to", "randn", "to-backward"])
def test_using_it_is_the_error_that_names_the_fix(use):
    with pytest.raises(RuntimeError, match="needs CuPy and a CUDA GPU"):
        use(mg.device("cuda:0"))


def test_a_block_with_it_as_default_refuses_the_tensors_made_inside_and_restores_the_cpu():
    with mg.device("cuda:1"):
        with pytest.raises(RuntimeError, match="needs CuPy"):
            mg.zeros(2)
    assert mg.zeros(2).device == "cpu"


def test_tensors_on_the_cpu_do_not_ask_the_named_gpu_anything():
    mg.device("cuda:0")                 # (kept among the devices the engine knows)
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0] and mg.as_tensor(x.detach().numpy()).device == "cpu"
