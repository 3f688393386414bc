"""Regenerate ``tests/data/torch_stft_fixtures.py``: PyTorch's answers to ``stft_cases``.

    python tests/data/make_torch_stft_fixtures.py        # needs torch; the tests do not

For each ``STFT`` case (float64): ``out = torch.stft(x, n_fft, hop_length, win_length, window,
center, pad_mode, normalized, onesided, return_complex=True, align_to_window=...)`` and the
fixture keeps ``out.shape``, ``(out * P).sum()``, ``loss = (out.abs() ** 2 * W).sum()`` and
``loss.backward()``'s gradients of ``x`` and ``window``.  For each ``ISTFT`` case:
``y = torch.istft(z, n_fft, hop_length, win_length, window, center, normalized, onesided,
length, return_complex)`` in full, and the gradients of ``(y.abs() ** 2 * W).sum()``.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from stft_cases import ISTFT, STFT, istft_data, istft_input_shape, stft_data, window  # noqa: E402

OUT = Path(__file__).with_name("torch_stft_fixtures.py")


def literal(a) -> str:
    a = np.asarray(a).ravel()
    if np.iscomplexobj(a):
        items = [f"complex({float(v.real)!r}, {float(v.imag)!r})" for v in a]
    else:
        items = [repr(float(v)) for v in a]
    lines, line = [], "        ["
    for item in items:
        if len(line) + len(item) > 112:
            lines.append(line.rstrip())
            line = "         "
        line += item + ", "
    return "\n".join(lines + [line.rstrip(", ") + "]"])


def leaf(a):
    return None if a is None else torch.tensor(a, requires_grad=True)


def stft_rows() -> list[str]:
    rows = []
    for k, (name, shape, n_fft, hop, wl, win, center, pm, norm, one, cplx, align) in enumerate(STFT):
        xt, wt = leaf(stft_data(k, shape, cplx)), leaf(window(win, wl or n_fft))
        out = torch.stft(xt, n_fft, hop, wl, wt, center, pm, norm, one, return_complex=True, align_to_window=align)
        _, P, W = stft_data(k, shape, cplx, tuple(out.shape))
        proj = complex((out.detach().numpy() * P).sum())
        loss = (out.abs() ** 2 * torch.tensor(W)).sum()
        loss.backward()
        gw = "        None" if wt is None else literal(wt.grad)
        rows.append(f"    {name!r}: ({tuple(out.shape)}, {proj!r}, {loss.item()!r},\n{literal(xt.grad)},\n{gw}),")
    return rows


def istft_rows() -> list[str]:
    rows = []
    for k, (name, batch, n_fft, hop, wl, win, center, norm, one, length, rc, n_frames) in enumerate(ISTFT):
        zt = leaf(istft_data(k, istft_input_shape(batch, n_fft, one, rc, n_frames)))
        wt = leaf(window(win, wl or n_fft))
        y = torch.istft(zt, n_fft, hop, wl, wt, center, norm, one, length, rc)
        _, W = istft_data(k, tuple(zt.shape), tuple(y.shape))
        (y.abs() ** 2 * torch.tensor(W)).sum().backward()
        gw = "        None" if wt is None else literal(wt.grad)
        rows.append(f"    {name!r}: ({tuple(y.shape)},\n{literal(y.detach())},\n{literal(zt.grad)},\n{gw}),")
    return rows


def main() -> None:
    warnings.simplefilter("ignore")  # the rectangular-window warnings
    head = (f'"""PyTorch {torch.__version__}\'s answers to ``stft_cases`` (written by '
            '``make_torch_stft_fixtures.py``, which says how).\n\n'
            "STFT_EXPECTED: name -> (shape, (out * P).sum(), loss, d loss / d x, d loss / d window or None).\n"
            'ISTFT_EXPECTED: name -> (shape, y, d loss / d z, d loss / d window or None).\n"""\n\n'
            )
    body = ["STFT_EXPECTED = {", *stft_rows(), "}", "", "ISTFT_EXPECTED = {", *istft_rows(), "}", ""]
    OUT.write_text(head + "\n" + "\n".join(body))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
