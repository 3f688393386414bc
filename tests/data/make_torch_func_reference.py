"""Regenerate ``tests/data/torch_func_reference.npz``: torch.func's derivatives of random nested programs.

    python tests/data/make_torch_func_reference.py        # needs torch; the tests do not

The programs are those of ``func_programs.py`` (nested transforms closing over
outer variables and parameters, Linear and BatchNorm in train/eval mode),
restricted to what torch.func can run: no tape calls inside a transform, no
dropout (the two engines' generators differ), no checkpointing, no in-place
writes.  Each program is built on torch.func from the same spec that
``tests/test_func_vs_torch_func.py`` builds on mg.func.

torch.func is itself wrong in places (training-mode ``batch_norm`` under
nested transforms), so every value is checked when it is made: each level's
inner transform against central differences of the function it transforms,
and the outer derivative against central differences of the whole program.
Where torch.func is wrong or raises, the case says so (``source``) and the
test checks mg on that program by central differences alone.

Stored: ``<i>|ref`` (the derivative; central differences where torch.func was
wrong), ``__meta__`` (JSON: the spec and ``source`` of each case).  The file
name does not start with ``test_``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch
import torch.func as tf
import torch.nn.functional as tnf

sys.path.insert(0, str(Path(__file__).parent))
import func_programs as fp  # noqa: E402

OUT = Path(__file__).with_name("torch_func_reference.npz")
N_PROGRAMS = 120
AGREE = dict(rtol=2e-5, atol=2e-6)


class TorchEngine:
    """The engine of ``func_programs.build`` on torch.func."""

    sin, tanh, exp, matmul = staticmethod(torch.sin), staticmethod(torch.tanh), staticmethod(torch.exp), \
        staticmethod(torch.matmul)
    grad, vjp, jacrev, jacfwd, hessian = (staticmethod(tf.grad), staticmethod(tf.vjp), staticmethod(tf.jacrev),
                                          staticmethod(tf.jacfwd), staticmethod(tf.hessian))

    @staticmethod
    def linearize(f, p):
        # torch.func.linearize traces with make_fx, which refuses nested forward mode;
        # its jvp_fn is by definition the jvp at p
        return f(p), lambda t: tf.jvp(f, (p,), (t,))[1]

    @staticmethod
    def jvp(f, primals, tangents):
        return tf.jvp(f, primals, tangents)

    @staticmethod
    def value_and_grad(f):
        def vg(p):
            g, v = tf.grad_and_value(f)(p)
            return v, g
        return vg

    @staticmethod
    def hvp(f, primals, tangents):
        return f(*primals), (tf.jvp(tf.grad(f), primals, tangents)[1],)

    @staticmethod
    def const(values):
        return torch.tensor(np.asarray(values, dtype=np.float64))

    @staticmethod
    def numpy(t):
        return t.detach().numpy().copy()

    @staticmethod
    def reseed(seed):
        torch.manual_seed(seed)

    @staticmethod
    def rng_state():
        return torch.get_rng_state()

    @staticmethod
    def set_rng_state(state):
        torch.set_rng_state(state)

    def closures(self, spec, w=None):
        w = self.const(spec["w"] if w is None else w)
        out = {"w": w.requires_grad_() if spec["param_grad"] else w, "Wc": self.const(spec["Wc"]),
               "bn_train": spec["module"] == "bn_train"}
        if spec["module"] == "linear":
            out["W"], out["b"] = self.const(spec["W"]), self.const(spec["b"])
            if spec["param_grad"]:
                out["W"].requires_grad_()
                out["b"].requires_grad_()
        return out

    @staticmethod
    def linear(z, closures):
        return tnf.linear(z, closures["W"], closures["b"])

    def batch_norm(self, z, closures):
        n = z.shape[0]
        ones, zeros = torch.ones(1, dtype=torch.float64), torch.zeros(1, dtype=torch.float64)
        training = closures["bn_train"]
        out = tnf.batch_norm(z.reshape(n, 1), None if training else zeros, None if training else ones,
                             ones, zeros, training=training, eps=1e-5)
        return out.reshape(n)


def _close(got: np.ndarray, want: np.ndarray, rtol: float = AGREE["rtol"]) -> bool:
    scale = max(1.0, float(np.abs(want).max()))
    return bool(np.allclose(got, want, rtol=rtol, atol=AGREE["atol"] * scale))


def make_case(rng: np.random.Generator) -> tuple[dict, np.ndarray, str] | None:
    """One program's derivative and where it comes from, or None where torch cannot evaluate the program.

    torch.func's value is kept only where every level of the program (each
    inner transform, against central differences of the function it
    transforms) and the outer derivative (against central differences of the
    whole program) agree; otherwise the case records what went wrong and the
    test checks mg on it by central differences alone.
    """
    spec = fp.random_spec(rng, mg_only=False)
    E = TorchEngine()
    program = fp.build(E, spec, E.closures(spec))
    try:
        want = fp.expected(spec, lambda xn: E.numpy(program(E.const(xn))))
        levels = fp.check_levels(E, spec, E.closures(spec), E.const(spec["x"]))
    except RuntimeError:  # torch.func cannot evaluate the program itself (ZeroTensors are immutable, ...)
        return None
    for i, got, ref in levels:
        if not _close(got, ref, 1e-4 if spec["kinds"][i] in ("hessian", "hvp") else AGREE["rtol"]):
            return spec, want, f"torch.func wrong: level {i} ({spec['kinds'][i]}) disagrees with central differences"
    try:
        got = fp.derivative(E, spec, program, E.const(spec["x"]))
    except RuntimeError as exc:
        return spec, want, f"torch.func raised: {str(exc).splitlines()[0][:80]}"
    if _close(got, want, 1e-4 if spec["outer"] == "hessian" else AGREE["rtol"]):
        return spec, got, "torch.func"
    return spec, want, "torch.func wrong: the outer derivative disagrees with central differences"


def main() -> None:
    rng = np.random.default_rng(20261201)
    arrays, meta = {}, []
    skipped = 0
    for i in range(N_PROGRAMS):
        case = make_case(rng)
        while case is None:
            skipped += 1
            case = make_case(rng)
        spec, ref, source = case
        arrays[f"{i}|ref"] = ref
        meta.append({"spec": spec, "source": source})
    arrays["__meta__"] = np.array(json.dumps(meta))
    np.savez_compressed(OUT, **arrays)
    wrong = sum(m["source"] != "torch.func" for m in meta)
    values = sum(arrays[f"{i}|ref"].size for i in range(N_PROGRAMS))
    print(f"wrote {OUT.name}: {N_PROGRAMS} programs, {values} derivative values; "
          f"torch.func disagreed with central differences (or raised) on {wrong}; "
          f"{skipped} programs torch.func could not evaluate were skipped")


if __name__ == "__main__":
    main()
