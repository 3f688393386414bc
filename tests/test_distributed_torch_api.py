"""A PyTorch data-parallel script's spellings work here and mean what they mean in PyTorch:
``init_process_group("gloo", rank=..., world_size=...)``, ``ReduceOp.AVG``/``PRODUCT``,
``all_gather(tensor_list, tensor)``, ``reduce``/``gather``/``scatter``, the ``*_into_tensor`` and
``*_object`` collectives, ``group=dist.group.WORLD``, ``async_op=True``, and
``DistributedDataParallel``'s arguments in PyTorch's order -- ``find_unused_parameters=True``
leaves the ``.grad`` of a parameter no rank used untouched, as PyTorch's does.

The scenario (``tests/distributed_worker.py torch_api``) runs under ``mpiexec -n 2`` and alone;
the expected numbers are torch 2.13's answers (gloo, two processes) to the same script.
"""

from __future__ import annotations

import inspect
import sys

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import distributed as dist
from minigrad_ckpt.nn.parallel import DistributedDataParallel

# torch 2.13's parameters, in order (inspect.signature of torch.distributed.<name>; DDP's __init__)
TORCH_PARAMETERS = {
    "init_process_group": "backend init_method timeout world_size rank store group_name pg_options device_id",
    "all_reduce": "tensor op group async_op",
    "broadcast": "tensor src group async_op group_src",
    "all_gather": "tensor_list tensor group async_op",
    "all_gather_into_tensor": "output_tensor input_tensor group async_op",
    "reduce": "tensor dst op group async_op group_dst",
    "reduce_scatter_tensor": "output input op group async_op",
    "gather": "tensor gather_list dst group async_op group_dst",
    "scatter": "tensor scatter_list src group async_op group_src",
    "all_gather_object": "object_list obj group",
    "broadcast_object_list": "object_list src group device group_src",
    "gather_object": "obj object_gather_list dst group group_dst",
    "scatter_object_list": "scatter_object_output_list scatter_object_input_list src group group_src",
    "barrier": "group async_op device_ids",
    "get_rank": "group",
    "get_world_size": "group",
    "get_backend": "group",
    "destroy_process_group": "group",
    "new_group": "ranks timeout backend pg_options use_local_synchronization group_desc device_id",
    "send": "tensor dst group tag group_dst",
    "recv": "tensor src group tag group_src",
    "isend": "tensor dst group tag group_dst",
    "irecv": "tensor src group tag group_src",
    "all_to_all": "output_tensor_list input_tensor_list group async_op",
    "all_to_all_single": "output input output_split_sizes input_split_sizes group async_op",
    "reduce_scatter": "output input_list op group async_op",
    "get_process_group_ranks": "group",
    "get_global_rank": "group group_rank",
    "get_group_rank": "group global_rank",
    "get_node_local_rank": "fallback_rank",
    "is_torchelastic_launched": "",
    "monitored_barrier": "group timeout wait_all_ranks",
}
TORCH_DDP_PARAMETERS = ("module device_ids output_device dim broadcast_buffers init_sync process_group bucket_cap_mb "
                        "find_unused_parameters check_reduction gradient_as_bucket_view static_graph "
                        "delay_all_reduce_named_params param_to_hook_all_reduce mixed_precision device_mesh "
                        "skip_all_reduce_unused_params bucket_cap_mb_list batched_grad_copy forward_sync_buffers")


@pytest.mark.parametrize("name", sorted(TORCH_PARAMETERS))
def test_the_collectives_take_pytorchs_arguments_in_its_order(name):
    got = list(inspect.signature(getattr(dist, name)).parameters)
    assert got[:len(TORCH_PARAMETERS[name].split())] == TORCH_PARAMETERS[name].split()


def test_ddp_takes_pytorchs_arguments_in_its_order():
    got = list(inspect.signature(DistributedDataParallel.__init__).parameters)[1:]
    assert got == TORCH_DDP_PARAMETERS.split()


def test_reduce_ops_have_pytorchs_names_and_the_engines_strings():
    assert dist.ReduceOp.AVG is dist.ReduceOp.MEAN and dist.ReduceOp.AVG == "mean"
    assert [dist.ReduceOp(s) for s in ("sum", "product", "max", "min")] == [
        dist.ReduceOp.SUM, dist.ReduceOp.PRODUCT, dist.ReduceOp.MAX, dist.ReduceOp.MIN]
    assert dist.group.WORLD is None  # PyTorch's GroupMember.WORLD before init_process_group
    assert dist.is_gloo_available() == dist.is_mpi_available() == dist.is_available()


def test_join_is_pytorchs_context_manager_with_its_refusals():
    from minigrad_ckpt.distributed.algorithms import Join, Joinable
    from minigrad_ckpt.distributed.algorithms.join import Join as JoinHere

    assert Join is JoinHere is dist.algorithms.join.Join and issubclass(DistributedDataParallel, Joinable)
    assert list(inspect.signature(Join.__init__).parameters)[1:] == [
        "joinables", "enable", "throw_on_early_termination", "kwargs"]
    with pytest.raises(ValueError, match="The join context manager requires at least one joinable"):
        Join([])
    with pytest.raises(AttributeError, match="'SGD' object has no attribute 'join_hook'"):  # PyTorch's error
        Join([mg.optim.SGD([mg.nn.Parameter(mg.ones(1))], lr=0.1)])


def test_a_ddp_option_that_changes_what_is_reduced_is_refused_not_ignored():
    for option in ("mixed_precision", "param_to_hook_all_reduce", "delay_all_reduce_named_params", "device_mesh"):
        with pytest.raises(NotImplementedError, match=option):
            DistributedDataParallel(mg.nn.Linear(2, 2), **{option: object()})
    with pytest.raises(NotImplementedError, match="skip_all_reduce_unused_params"):
        DistributedDataParallel(mg.nn.Linear(2, 2), skip_all_reduce_unused_params=True)
    with pytest.raises(ValueError, match="device_ids can only be None or contain a single element"):
        DistributedDataParallel(mg.nn.Linear(2, 2), device_ids=[0, 1])


pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from test_distributed import WORKER, launch, results, run  # noqa: E402

# torch 2.13, gloo, two processes, the same script: a is used on both ranks, b on rank 1 only, c on none
TORCH_GRADS = {
    "True 1": {"a.weight": [6.0, 6.0], "a.bias": [4.0, 4.0], "b.weight": [4.0, 4.0], "b.bias": [2.0, 2.0],
               "c.weight": None, "c.bias": None},
    "True 2": {"a.weight": [12.0, 12.0], "a.bias": [8.0, 8.0], "b.weight": [8.0, 8.0], "b.bias": [4.0, 4.0],
               "c.weight": None, "c.bias": None},
    # b used inside no_sync on rank 0 only, then a synced backward that uses it on no rank: its
    # accumulated gradient is still averaged (4 / 2), as torch's local_used_map counts no_sync's use
    "no_sync": {"a.weight": [12.0, 12.0], "a.bias": [8.0, 8.0], "b.weight": [2.0, 2.0], "b.bias": [2.0, 2.0],
                "c.weight": None, "c.bias": None},
}
REFUSED = ["ValueError: DistributedDataParallel device_ids and output_device argumen",
           "NotImplementedError: DistributedDataParallel(mixed_precision=...) is not offered ",
           "NotImplementedError: new_group(ranks=[0]): subgroups of ranks are not offered; on",
           "RuntimeError: all_reduce(op=ReduceOp.AVG): result type Float can't be cast",
           "RuntimeError: all_gather: invalid tensor at index 0 of tensor_list (expect",
           "ValueError: trying to initialize the default process group twice! (init_"]


def test_a_pytorch_scripts_collectives_and_ddp_under_mpiexec():
    r = results(launch("torch_api"))
    for rank in (0, 1):
        got = r[rank]
        assert got["backend"] == "mpi" and got["world"] and got["product_work"] is True
        assert got["product"] == [2.0, 4.0] and got["avg"] == [0.5]
        assert got["all_gather"] == [[0.0, 0.5], [1.0, 1.5]]
        assert got["all_gather_into_tensor"] == [0.0, 0.5, 1.0, 1.5]
        assert got["reduce"] == ([1.0], [3.0])[rank]          # only dst=1 takes the sum
        assert got["gather"] == ([[0.0], [10.0]], None)[rank]  # only on dst=0
        assert got["scatter"] == ([0.0, 1.0], [2.0, 3.0])[rank]
        assert got["reduce_scatter_tensor"] == ([0.0, 3.0], [6.0, 9.0])[rank]
        assert got["all_gather_object"] == [{"rank": 0}, {"rank": 1}]
        assert got["broadcast_object_list"] == [1, "from"]
        assert got["gather_object"] == ([0, 3], None)[rank]
        assert got["scatter_object_list"] == [f"to {rank}"]
        grads = got["grads"]
        assert {k: grads[k] for k in TORCH_GRADS} == TORCH_GRADS
        assert grads["checkpointed"] == TORCH_GRADS["True 1"]  # the forward checkpointed: the same
        # static_graph=True, without find_unused_parameters: torch 2.13 answers as with it (c's .grad stays None)
        assert grads["static 1"] == TORCH_GRADS["True 1"] and grads["static 2"] == TORCH_GRADS["True 2"]
        # without the option (where PyTorch raises at the next forward) the engine averages zeros
        assert grads["False 1"]["c.weight"] == [0.0, 0.0] and grads["False 2"]["b.weight"] == [8.0, 8.0]
        assert got["refused"] == REFUSED
        # torch 2.13: broadcast_buffers=False (deprecated) leaves rank-local buffers alone at
        # construction too; forward_sync_buffers=False syncs them then, never before a forward
        own, first = float(rank + 1), 1.0
        buf = got["buffer_sync"]
        assert buf["broadcast_buffers"]["init"] == [own, own] and buf["broadcast_buffers"]["attr"] is False
        assert buf["forward_sync_buffers"]["init"] == [first, first]
        assert buf["both"]["init"] == [first, first] and buf["both"]["attr"] is False
        for case, start in (("broadcast_buffers", own), ("forward_sync_buffers", first), ("both", first)):
            want = [0.9 * start + 0.1 * (rank + 1), 0.9 * start + 0.1 * 3 * (rank + 1)]
            assert buf[case]["after"] == pytest.approx(want, rel=1e-12), (case, buf[case])
        assert [buf[c]["warned"] for c in ("broadcast_buffers", "forward_sync_buffers", "both")] == [
            ["FutureWarning"], [], ["FutureWarning"]]
        # Join([ddp], divide_by_initial_world_size=False), rank r with 1 + 2r batches of ones * (r + k): each
        # weight's gradient is 2 (r + k); averaged over the ranks with data: (0 + 2) / 2, then 4 and 6 alone
        assert got["join"]["same_weights"]
        assert got["join"]["moved"] == [pytest.approx(-0.1 * (1 + 4 + 6), abs=1e-12)]


def test_the_same_script_runs_alone_as_a_world_of_one():
    got = results(run([sys.executable, str(WORKER), "torch_api"]), n=1)[0]
    assert got["join"] == {"same_weights": True, "moved": [0.0]}  # Join([ddp]) alone: one batch of zeros
    assert got["product"] == [1.0, 2.0] and got["all_gather"] == [[0.0, 0.5]] and got["gather"] == [[0.0]]
    assert got["grads"]["True 1"]["b.weight"] is None and got["grads"]["False 1"]["b.weight"] == [0.0, 0.0]


def test_a_rank_or_world_size_that_is_not_the_launchers_is_refused():
    code = ("import minigrad_ckpt.distributed as d\n"
            "try:\n    d.init_process_group('gloo', world_size=2)\nexcept ValueError as e:\n    print('RESULT 0', "
            "'{\"error\": \"%s\"}' % str(e)[:40])\n")
    got = results(run([sys.executable, "-c", code]), n=1)[0]
    assert got["error"] == "init_process_group(world_size=2), but th"


# torch 2.13, gloo, two processes: bool reductions are any (SUM, MAX) and all (PRODUCT, MIN); rank 0 holds
# [T, F, T, F] and [T, F], rank 1 [T, T, F, F] and [F, F]; reduce() writes on dst=0 only.  (MIN reduces the
# view t[::2]: there torch's gloo leaves rank 0's strided view unchanged, a torch bug; the engine reduces
# views in place, as its test_collectives checks for floats.)
TORCH_BOOL = {
    "SUM": ([[True, True, True, False], [True, False]], [[True, True, True, False], [False, False]]),
    "PRODUCT": ([[True, False, False, False], [False, False]], [[True, False, False, False], [False, False]]),
    "MAX": ([[True, True, True, False], [True, False]], [[True, True, True, False], [False, False]]),
    "MIN": ([[True, False, False, False], [False, False]], [[True, True, False, False], [False, False]]),
}


def test_bool_and_complex_reductions_futures_and_a_module_with_nothing_to_train():
    r = results(launch("dtypes_and_futures"))
    for rank in (0, 1):
        got = r[rank]
        for op, want in TORCH_BOOL.items():  # MPI has no sum of bools: it raised "Invalid MPI_Op"
            assert got[f"bool {op}"] == want[rank], op
        for op in ("PRODUCT", "MAX", "MIN"):  # PyTorch's refusal (MPI raised for MAX and MIN, multiplied for PRODUCT)
            refusal = f"ValueError: all_reduce does not support ReduceOp.{op} on complex tensors"
            assert got[f"complex {op}"] == refusal[:72]
        assert got["complex SUM"] == "no error" and got["complex AVG"] == ["(1.5+3j)", "4.5j"]
        # torch 2.13's bitwise reductions (gloo) of [6, 5, 0, 1] and [3, 1, 0, 1], as int32 and as bool
        assert got["BAND"][:2] == [[2, 1, 0, 1], [True, True, False, True]]
        assert got["BOR"][:2] == [[7, 5, 0, 1], [True, True, False, True]]
        assert got["BXOR"][:2] == [[5, 4, 0, 0], [False, False, False, False]]
        for op in ("BAND", "BOR", "BXOR"):
            assert got[op][2] == f"RuntimeError: Cannot use ReduceOp.{op} with non-integral dtype"
        assert got["frozen"] == "RuntimeError: DistributedDataParallel is not needed when a module doesn't "
        # Work.get_future(): a completed Future of the written tensors; then() chains, as torch's
        assert got["future"] == [True, [[3.0]], True, [6.0]]
        assert got["then_raises"] == "RuntimeError: Got the following error when running the callback: ZeroDivis"
        assert got["all_gather"] == [[3.0], [3.0]] and got["barrier"] == []
        # PyTorch's refusals, raised on every rank before any communicates (the engine's were a RuntimeError
        # and an IndexError after the collective)
        assert got["mixed_dtypes"] == "ValueError: Invalid usage of tensors with different dtypesFound float32 "
        assert got["scatter_to_nothing"] == "ValueError: Expected argument scatter_object_output_list to be a list of"


def _flat(case: dict) -> tuple[list[float], list[float]]:
    return [v for g in case["grads"] for v in g], [v for p in case["params"] for v in p]


def test_communication_hooks_reduce_the_buckets_as_pytorchs_do():
    """``register_comm_hook``: tests/data/make_torch_ddp_comm_hooks.py's cases against torch 2.13's numbers
    (float64; the float16 cases to float16's rounding, which an ulp of float64 may tip)."""
    import json
    from pathlib import Path

    import numpy as np

    want = json.loads((Path(__file__).parent / "data" / "torch_ddp_comm_hooks.json").read_text())
    r = results(launch("comm_hooks"))
    for rank in (0, 1):
        got, ref = r[rank], want["ranks"][rank]
        for case in want["cases"]:
            rtol = 2e-3 if case.startswith("fp16") else 1e-10
            for a, b in zip(_flat(got[case]), _flat(ref[case])):
                np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol, err_msg=f"rank {rank} {case}")
        assert _flat(got["allreduce"]) == _flat(got["none"])  # DDP's own mean, bitwise (a / 2 + b / 2)
        half = np.array(_flat(got["fp16"])[0])
        assert (half.astype(np.float16).astype(np.float64) == half).all()  # sent as float16: its values
        assert _flat(got["fp16_wrapper"]) == _flat(got["fp16"])
        assert _flat(got["written_out"]) == _flat(got["allreduce"])  # dist.group.WORLD.size(): PyTorch's method
        assert got["group"] == [2, rank, 2]
        assert _flat(got["local"])[0] != _flat(got["none"])[0]  # each rank kept its own gradient
        assert got["refused"] == [f"{kind}: {message[:60]}" for kind, message in (  # torch 2.13's errors
            ("RuntimeError", "register_comm_hook or register_builtin_comm_hook can only be called once."),
            ("TypeError", "Communication hook must be callable."),
            ("ValueError", "Communication hook: bucket annotation should be dist.GradBucket."))]


def test_point_to_point_all_to_all_and_reduce_scatter_as_pytorchs():
    """The numbers are torch 2.13's (gloo, two processes) for the same script (its recv into a
    strided view aside: torch wants a contiguous tensor, the engine writes the view)."""
    r = results(launch("point_to_point"))
    for rank in (0, 1):
        got = r[rank]
        assert got["ring"] == [True, True, [[10.0, 11.0, 12.0], [0.0, 1.0, 2.0]][rank]]
        if rank == 1:
            assert got["from"] == 0 and got["received"] == [[1, 0, 2, 0], [3, 0, 4, 0]]
            assert got["source_rank"] == [0, None, None]  # irecv from any rank: Work.source_rank(), as torch's
        assert got["not_a_receive"] == "RuntimeError: sourceRank() may only be called on work objects that corresp"
        assert got["to_self"] == "ValueError: Invalid destination rank: destination rank should not be the"
        assert got["to_nobody"] == "ValueError: Must specify global_rank or group_rank"
        assert got["all_to_all"] == [
            [[0.0, 1.0, 10.0, 11.0], [[0.0, 1.0], [100.0, 101.0], [102.0, 103.0], [104.0, 105.0]],
             [[0.0, 0.0], [10.0, 0.0]]],
            [[2.0, 3.0, 12.0, 13.0], [[2.0, 3.0], [4.0, 5.0], [106.0, 107.0]], [[1.0, -1.0], [11.0, -1.0]]],
        ][rank]
        assert got["reduce_scatter"] == [[3.0, 3.0], [30.0, 30.0]][rank]
        assert got["ranks"] == [[0, 1], 1, 1, False]


def test_a_monitored_barrier_is_held_to_its_own_timeout():
    proc = launch("monitored_barrier", timeout=45)
    assert proc.returncode != 0, proc.stdout  # the job was ended, though rank 0 caught the error
    assert proc.stdout.count("passed") == 2, proc.stdout
    assert "caught after 1." in proc.stdout and "barrier did not complete within 1 s on rank 0" in proc.stdout


def test_pytorchs_per_device_backend_string_picks_the_default_devices():
    """init_process_group("cpu:gloo,cuda:nccl") (PyTorch's form, FSDP's scripts use it): the CPU's here."""
    code = ("import json, minigrad_ckpt.distributed as d\n"
            "errors = []\n"
            "for spec in ('cuda:nccl', 'cpu:foo'):\n"
            "    try:\n        d.init_process_group(spec)\n"
            "    except ValueError as e:\n        errors.append(str(e)[:40])\n"
            "d.init_process_group('cpu:gloo,cuda:nccl')\n"
            "print('RESULT 0', json.dumps({'backend': d.get_backend(), 'errors': errors}))\n")
    got = results(run([sys.executable, "-c", code]), n=1)[0]
    assert got == {"backend": "mpi", "errors": ["backend 'cuda:nccl' names no backend for",
                                                "backend 'cpu:foo': expected PyTorch's '<"]}
