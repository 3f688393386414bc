"""``detach()`` of a result in the engine's own layout (a convolution's channel-major product, or the
gradient of one) shares PyTorch's row-major layout, so ``view`` answers as in PyTorch.  Found porting
Opacus: its backward hook takes ``backprops = grad_output[0].detach()`` and its Conv2d sampler
``convolution2d_backward_as_a_convolution`` views it as ``(n * o, 1, h, w)``; before, that view was
refused ("view size is not compatible ...") because a detached alias froze the channel-major layout."""

import minigrad_ckpt as mg


def _conv_and_input():
    mg.manual_seed(0)
    return mg.nn.Conv2d(1, 2, 2), mg.randn(2, 1, 11, 11)


def test_a_detached_convolution_result_is_row_major_and_viewable():
    conv, x = _conv_and_input()
    out = conv(x).detach()
    assert out.stride() == (200, 100, 10, 1) and out.is_contiguous()  # torch 2.13's
    assert out.view(4, 1, 10, 10).shape == (4, 1, 10, 10)


def test_the_detached_gradient_a_backward_hook_receives_is_viewable():
    conv, x = _conv_and_input()
    seen = {}

    def hook(module, grad_input, grad_output):
        backprops = grad_output[0].detach()
        seen["stride"] = backprops.stride()
        seen["view"] = backprops.view(4, 1, 10, 10)

    conv.register_full_backward_hook(hook)
    out = conv(x)
    mg.nn.L1Loss()(out, mg.zeros_like(out)).backward()
    assert seen["stride"] == (200, 100, 10, 1)  # torch 2.13's
    assert seen["view"].shape == (4, 1, 10, 10)


def test_detach_still_shares_memory_and_a_transpose_still_refuses_view():
    conv, x = _conv_and_input()
    out = conv(x)
    alias = out.detach()
    alias.zero_()
    assert float(out.abs().sum()) == 0.0  # one memory
    t = mg.randn(3, 4).t().detach()
    try:
        t.view(-1)
    except RuntimeError as e:
        assert "view size is not compatible" in str(e)
    else:
        raise AssertionError("a transpose's view across its strides must be refused, as PyTorch's")
