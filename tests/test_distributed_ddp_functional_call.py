"""``mg.func.grad`` of a loss written with ``functional_call(ddp, params, ...)`` -- the function
transforms around a DDP model -- gives each rank its own gradient with respect to the tensors
passed, without averaging, as PyTorch's (its reducer's hooks sit on the wrapped parameters, which
such a forward never reaches); ordinary ``backward()`` steps on the same DDP model still average.

The engine refused that forward with "parameter '2.weight' was added, replaced or unfrozen after
the model was wrapped": the check that guards the gradient buckets took the caller's tensors,
standing in for the call, for a model changed after wrapping.  A parameter really replaced after
wrapping is still refused.

The numbers are torch 2.13's (gloo, two processes, ``torch.multiprocessing.spawn``) for the same
script.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
sys.path.insert(0, str(Path(__file__).parent))
from test_distributed import mpiexec, results, run  # noqa: E402

SCRIPT = r"""
import json
import numpy as np
import minigrad_ckpt as mg
from minigrad_ckpt import distributed as dist
from minigrad_ckpt.nn.parallel import DistributedDataParallel

dist.init_process_group("gloo")
rank = dist.get_rank()
m = mg.nn.Sequential(mg.nn.Linear(2, 3), mg.nn.Tanh(), mg.nn.Linear(3, 1)).double()
rng = np.random.default_rng(0)
m.load_state_dict({k: mg.tensor(rng.standard_normal(tuple(v.shape))) for k, v in m.state_dict().items()})
ddp = DistributedDataParallel(m)
x = mg.tensor(np.arange(8.0).reshape(4, 2) * (rank + 1))
params = {k: v.detach() for k, v in ddp.named_parameters()}

def loss(p, x):
    return mg.func.functional_call(ddp, p, (x,)).pow(2).sum()

out = {"grads": [mg.func.grad(loss)(params, x)["module.0.weight"].numpy().round(10).tolist() for _ in range(2)]}
outer = mg.nn.Sequential(ddp)  # a model holding the DDP one: keys "0.module.0.weight", ...
inner = {"0." + k: v for k, v in params.items()}
out["outer"] = mg.func.grad(lambda p, x: mg.func.functional_call(outer, p, (x,)).pow(2).sum())(inner, x)[
    "0.module.0.weight"].numpy().round(10).tolist()
ddp(x).pow(2).sum().backward()
out["averaged"] = m[0].weight.grad.numpy().round(10).tolist()
# a functional_call of a model holding the DDP one that swaps only the head beside it: the wrapped
# parameters stay in place, the forward reaches them, and backward averages their gradients
m.zero_grad()
with_head = mg.nn.Sequential(ddp, mg.nn.Linear(1, 1).double())
head = {"1.weight": mg.full((1, 1), 2.0, dtype=mg.float64), "1.bias": mg.zeros(1, dtype=mg.float64)}
mg.func.functional_call(with_head, head, (x,)).pow(2).sum().backward()
out["head_swapped"] = m[0].weight.grad.numpy().round(10).tolist()
m[2].weight = mg.nn.Parameter(m[2].weight.detach().clone())
try:
    ddp(x)
    out["replaced"] = "no error"
except RuntimeError as e:
    out["replaced"] = str(e)[:60]
print(f"RESULT {rank} " + json.dumps(out))
"""

# torch 2.13, gloo, two processes: d loss / d module.0.weight through func.grad (each rank's own,
# twice the same), then after ddp(x).pow(2).sum().backward() (the mean of the two)
OWN = {0: [[40.8835212046, 54.1605859021], [0.2710441877, 2.2694809062], [-1.3907235142, -2.0931392563]],
       1: [[103.5065688641, 136.7042433611], [0.0201079897, 3.1494065321], [-1.6824995495, -2.9268901866]]}
AVERAGED = [[72.1950450343, 95.4324146316], [0.1455760887, 2.7094437191], [-1.5366115318, -2.5100147214]]


def test_func_grad_through_a_ddp_model_gives_each_ranks_own_gradient_as_pytorchs(tmp_path):
    script = tmp_path / "ddp_functional_call.py"
    script.write_text(SCRIPT)
    got = results(run([mpiexec(), "-launcher", "fork", "-n", "2", sys.executable, str(script)], timeout=120))
    for rank in (0, 1):
        assert got[rank]["grads"] == [OWN[rank], OWN[rank]]
        assert got[rank]["outer"] == OWN[rank]
        assert got[rank]["averaged"] == AVERAGED
        # the head doubles the output: four times the loss's gradient, averaged over the ranks
        assert np.allclose(got[rank]["head_swapped"], 4 * np.array(AVERAGED), rtol=1e-9, atol=1e-9)
        assert got[rank]["replaced"] == "DistributedDataParallel: parameter '2.weight' was added, rep"
