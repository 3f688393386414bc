"""Regenerate ``tests/data/jax_reference.npz``: JAX's transforms of the functions in func_cases.py.

    /work/venv-jax/bin/python tests/data/make_jax_reference.py     # needs jax; the tests do not

For every case (inputs from a fixed NumPy seed, float64) the file holds, under
``<case>|<key>``:

``arg<k>``            the inputs
``tan<k>``            random tangents, one per input;  ``jvp_out<i>``, ``jvp_tan<i>``: ``jax.jvp``
``cot<i>``            random cotangents, one per output; ``vjp<k>``: ``jax.vjp``'s gradients
``jacfwd<i>_<k>``     ``jax.jacfwd(f, argnums=all)``: output ``i`` by argument ``k``
``jacrev<i>_<k>``     ``jax.jacrev(f, argnums=all)``
scalar functions also: ``grad<k>`` (``jax.grad``, argnums=all), ``hessian`` (of argument 0),
``hvp<k>`` (``jax.jvp(jax.grad(f, argnums=all), args, tangents)``)

``tests/test_func_vs_jax.py`` replays every case with ``mg.func`` (no jax import).
The file name does not start with ``test_`` so pytest never collects it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)
sys.path.insert(0, str(Path(__file__).parent))
from func_cases import CASES  # noqa: E402

OUT = Path(__file__).with_name("jax_reference.npz")


def as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def main() -> None:
    rng = np.random.default_rng(20261201)
    arrays: dict[str, np.ndarray] = {}
    for name, (fn, shapes, scalar) in CASES.items():
        def f(*args, fn=fn):
            return fn(jnp, *args)

        args = [rng.standard_normal(s) * 0.7 for s in shapes]
        tans = [rng.standard_normal(s) for s in shapes]
        n = len(args)
        allnums = tuple(range(n))
        for k, (a, t) in enumerate(zip(args, tans)):
            arrays[f"{name}|arg{k}"] = a
            arrays[f"{name}|tan{k}"] = t
        jargs = [jnp.asarray(a) for a in args]
        out, tout = jax.jvp(f, tuple(jargs), tuple(jnp.asarray(t) for t in tans))
        outs, touts = as_tuple(out), as_tuple(tout)
        for i, (o, t) in enumerate(zip(outs, touts)):
            arrays[f"{name}|jvp_out{i}"] = np.asarray(o)
            arrays[f"{name}|jvp_tan{i}"] = np.asarray(t)
        cots = [rng.standard_normal(np.shape(o)) for o in outs]
        for i, c in enumerate(cots):
            arrays[f"{name}|cot{i}"] = c
        _, vjp_fn = jax.vjp(f, *jargs)
        ct = tuple(jnp.asarray(c) for c in cots)
        for k, g in enumerate(vjp_fn(ct if len(outs) > 1 else ct[0])):
            arrays[f"{name}|vjp{k}"] = np.asarray(g)
        for kind, jac in (("jacfwd", jax.jacfwd), ("jacrev", jax.jacrev)):
            j = jac(f, argnums=allnums)(*jargs)
            rows = j if len(outs) > 1 else (j,)
            for i, row in enumerate(rows):
                for k, jk in enumerate(row):
                    arrays[f"{name}|{kind}{i}_{k}"] = np.asarray(jk)
        if scalar:
            for k, g in enumerate(jax.grad(f, argnums=allnums)(*jargs)):
                arrays[f"{name}|grad{k}"] = np.asarray(g)
            arrays[f"{name}|hessian"] = np.asarray(jax.hessian(f)(*jargs))
            _, hv = jax.jvp(jax.grad(f, argnums=allnums), tuple(jargs), tuple(jnp.asarray(t) for t in tans))
            for k, h in enumerate(hv):
                arrays[f"{name}|hvp{k}"] = np.asarray(h)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({len(arrays)} arrays, {OUT.stat().st_size} bytes), jax {jax.__version__}")


if __name__ == "__main__":
    main()
