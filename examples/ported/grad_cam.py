"""pytorch-grad-cam (jacobgil/pytorch-grad-cam, the ``pytorch_grad_cam`` package), ported to minigrad_ckpt
by a mechanical rename: the library's own classes, as it spells them, on a small network.

    python examples/ported/grad_cam.py [--dtype float64]

What the library does, kept here: ``ActivationsAndGradients`` catches a layer's output with a forward
hook and its gradient with a tensor hook registered on that output (``output.register_hook``);
``BaseCAM`` runs the model, backpropagates the targets' sum and turns the caught tensors into a map per
image (``GradCAM``, ``HiResCAM``, ``GradCAMPlusPlus``, ``XGradCAM``, ``LayerCAM``, ``EigenCAM`` through an
SVD of the activations).  ``ScoreCAM`` masks the input with each upsampled channel under ``no_grad``;
``AblationCAM`` swaps the layer for an ``AblationLayer`` (through ``model._modules``) that writes zeros
into a copy of the caught activations in place; ``FullGrad`` takes the input's gradient (``Variable(x,
requires_grad=True)``) and the biases of every ``Conv2d``/``BatchNorm2d`` (BatchNorm's folded from its
running statistics); ``ShapleyCAM`` keeps the graph (``detach=False``, ``create_graph=True``) and takes a
Hessian-vector product of the caught gradient with respect to the caught activation;
``GuidedBackpropReLUModel`` swaps every ``ReLU`` for a custom ``autograd.Function`` and returns the input's
gradient; ``CamMultImageConfidenceChange`` scores a map by the targets' change on the masked image.

Made small: torchvision's ResNet-50 becomes ``TinyResNet`` (torchvision's ``BasicBlock``, spelled as
torchvision spells it), trained for ``--steps`` SGD steps on 16x16 images made by a ``sin`` formula so its
BatchNorm statistics are its own; OpenCV's ``cv2.resize`` (bilinear) is written in NumPy (``resize``);
``ttach``'s test-time augmentation, ``tqdm`` and the Habana device branch are left out.  ``history``
holds the losses, then for each method three sums of its maps (plain, absolute, against a fixed
pattern).  The maps are float32 whatever the network's dtype (the library's ``np.float32`` casts, and
ScoreCAM's ``torch.Tensor(scores)``), so ``--dtype float64`` is a float64 network under float32 maps.  The
lines that differ from the library are listed in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.autograd import Function

log = []
history = []


def show(*args):
    log.append(" ".join(str(a) for a in args))


# ---- pytorch_grad_cam/utils (cv2.resize written in NumPy) ----

def resize(img, dsize):
    """cv2.resize(img, (width, height)) with its default bilinear interpolation (half-pixel centres)."""
    def axis(n_out, n_in):
        x = np.clip((np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5, 0, n_in - 1)
        lo = np.floor(x).astype(int)
        return lo, np.minimum(lo + 1, n_in - 1), (x - lo).astype(np.float32)
    y0, y1, fy = axis(dsize[1], img.shape[0])
    x0, x1, fx = axis(dsize[0], img.shape[1])
    top = img[y0][:, x0] * (1 - fx) + img[y0][:, x1] * fx
    bottom = img[y1][:, x0] * (1 - fx) + img[y1][:, x1] * fx
    return np.float32(top * (1 - fy[:, None]) + bottom * fy[:, None])


def scale_cam_image(cam, target_size=None):
    result = []
    for img in cam:
        img = img - np.min(img)
        img = img / (1e-7 + np.max(img))
        if target_size is not None:
            img = resize(np.float32(img), target_size)
        result.append(img)
    result = np.float32(result)
    return result


def scale_accross_batch_and_channels(tensor, target_size):
    batch_size, channel_size = tensor.shape[:2]
    reshaped_tensor = tensor.reshape(batch_size * channel_size, *tensor.shape[2:])
    result = scale_cam_image(reshaped_tensor, target_size)
    return result.reshape(batch_size, channel_size, target_size[1], target_size[0])


def get_2d_projection(activation_batch):
    activation_batch = activation_batch.copy()
    activation_batch[np.isnan(activation_batch)] = 0
    projections = []
    for activations in activation_batch:
        reshaped_activations = (activations).reshape(activations.shape[0], -1).transpose()
        reshaped_activations = reshaped_activations - reshaped_activations.mean(axis=0)
        U, S, VT = np.linalg.svd(reshaped_activations, full_matrices=True)
        projection = reshaped_activations @ VT[0, :]
        projections.append(projection.reshape(activations.shape[1:]))
    return np.float32(projections)


def replace_layer_recursive(model, old_layer, new_layer):
    for name, layer in model._modules.items():
        if layer == old_layer:
            model._modules[name] = new_layer
            return True
        elif replace_layer_recursive(layer, old_layer, new_layer):
            return True
    return False


def replace_all_layer_type_recursive(model, old_layer_type, new_layer):
    for name, layer in model._modules.items():
        if isinstance(layer, old_layer_type):
            model._modules[name] = new_layer
        replace_all_layer_type_recursive(layer, old_layer_type, new_layer)


def find_layer_predicate_recursive(model, predicate):
    result = []
    for name, layer in model._modules.items():
        if predicate(layer):
            result.append(layer)
        result.extend(find_layer_predicate_recursive(layer, predicate))
    return result


class ClassifierOutputTarget:
    def __init__(self, category):
        self.category = category

    def __call__(self, model_output):
        if len(model_output.shape) == 1:
            return model_output[self.category]
        return model_output[:, self.category]


class ClassifierOutputSoftmaxTarget:
    def __init__(self, category):
        self.category = category

    def __call__(self, model_output):
        if len(model_output.shape) == 1:
            return mg.softmax(model_output, dim=-1)[self.category]
        return mg.softmax(model_output, dim=-1)[:, self.category]


# ---- pytorch_grad_cam/activations_and_gradients.py ----

class ActivationsAndGradients:
    def __init__(self, model, target_layers, reshape_transform, detach=True):
        self.model = model
        self.gradients = []
        self.activations = []
        self.reshape_transform = reshape_transform
        self.detach = detach
        self.handles = []
        for target_layer in target_layers:
            self.handles.append(target_layer.register_forward_hook(self.save_activation))
            self.handles.append(target_layer.register_forward_hook(self.save_gradient))

    def save_activation(self, module, input, output):
        activation = output
        if self.detach:
            self.activations.append(activation.cpu().detach())
        else:
            self.activations.append(activation)

    def save_gradient(self, module, input, output):
        if not hasattr(output, "requires_grad") or not output.requires_grad:
            return

        def _store_grad(grad):
            if self.detach:
                self.gradients = [grad.cpu().detach()] + self.gradients
            else:
                self.gradients = [grad] + self.gradients

        output.register_hook(_store_grad)

    def __call__(self, x):
        self.gradients = []
        self.activations = []
        return self.model(x)

    def clear(self):
        for a in self.activations:
            if isinstance(a, mg.Tensor):
                a.detach_()
        for g in self.gradients:
            if isinstance(g, mg.Tensor):
                g.detach_()
        self.activations.clear()
        self.gradients.clear()

    def release(self):
        self.clear()
        for handle in self.handles:
            handle.remove()
        self.handles.clear()


# ---- pytorch_grad_cam/base_cam.py (ttach and the Habana branch left out) ----

class BaseCAM:
    def __init__(self, model, target_layers, reshape_transform=None, compute_input_gradient=False,
                 uses_gradients=True, detach=True):
        self.model = model
        self.model.eval()
        self.target_layers = target_layers
        self.device = next(self.model.parameters()).device
        self.reshape_transform = reshape_transform
        self.compute_input_gradient = compute_input_gradient
        self.uses_gradients = uses_gradients
        self.detach = detach
        self.activations_and_grads = ActivationsAndGradients(self.model, target_layers, reshape_transform,
                                                             self.detach)

    def get_cam_image(self, input_tensor, target_layer, targets, activations, grads, eigen_smooth=False):
        weights = self.get_cam_weights(input_tensor, target_layer, targets, activations, grads)
        if isinstance(activations, mg.Tensor):
            activations = activations.cpu().detach().numpy()
        weighted_activations = weights[:, :, None, None] * activations
        if eigen_smooth:
            cam = get_2d_projection(weighted_activations)
        else:
            cam = weighted_activations.sum(axis=1)
        return cam

    def forward(self, input_tensor, targets, eigen_smooth=False):
        input_tensor = input_tensor.to(self.device)
        if self.compute_input_gradient:
            input_tensor = mg.autograd.Variable(input_tensor, requires_grad=True)
        self.outputs = outputs = self.activations_and_grads(input_tensor)
        if targets is None:
            target_categories = np.argmax(outputs.cpu().data.numpy(), axis=-1)
            targets = [ClassifierOutputTarget(category) for category in target_categories]
        if self.uses_gradients:
            self.model.zero_grad()
            loss = sum([target(output) for target, output in zip(targets, outputs)])
            if self.detach:
                loss.backward(retain_graph=True)
            else:
                mg.autograd.grad(loss, input_tensor, retain_graph=True, create_graph=True)
        cam_per_layer = self.compute_cam_per_layer(input_tensor, targets, eigen_smooth)
        return self.aggregate_multi_layers(cam_per_layer)

    def get_target_width_height(self, input_tensor):
        width, height = input_tensor.size(-1), input_tensor.size(-2)
        return width, height

    def compute_cam_per_layer(self, input_tensor, targets, eigen_smooth):
        if self.detach:
            activations_list = [a.cpu().data.numpy() for a in self.activations_and_grads.activations]
            grads_list = [g.cpu().data.numpy() for g in self.activations_and_grads.gradients]
        else:
            activations_list = [a for a in self.activations_and_grads.activations]
            grads_list = [g for g in self.activations_and_grads.gradients]
        target_size = self.get_target_width_height(input_tensor)
        cam_per_target_layer = []
        for i in range(len(self.target_layers)):
            target_layer = self.target_layers[i]
            layer_activations = activations_list[i] if i < len(activations_list) else None
            layer_grads = grads_list[i] if i < len(grads_list) else None
            cam = self.get_cam_image(input_tensor, target_layer, targets, layer_activations, layer_grads,
                                     eigen_smooth)
            cam = np.maximum(cam, 0)
            scaled = scale_cam_image(cam, target_size)
            cam_per_target_layer.append(scaled[:, None, :])
        return cam_per_target_layer

    def aggregate_multi_layers(self, cam_per_target_layer):
        cam_per_target_layer = np.concatenate(cam_per_target_layer, axis=1)
        cam_per_target_layer = np.maximum(cam_per_target_layer, 0)
        result = np.mean(cam_per_target_layer, axis=1)
        return scale_cam_image(result)

    def __call__(self, input_tensor, targets, aug_smooth=False, eigen_smooth=False):
        return self.forward(input_tensor, targets, eigen_smooth)

    def __del__(self):
        self.activations_and_grads.release()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, exc_tb):
        self.activations_and_grads.release()


# ---- the methods (pytorch_grad_cam/<method>.py) ----

class GradCAM(BaseCAM):
    def get_cam_weights(self, input_tensor, target_layer, target_category, activations, grads):
        return np.mean(grads, axis=(2, 3))


class HiResCAM(BaseCAM):
    def get_cam_image(self, input_tensor, target_layer, target_category, activations, grads, eigen_smooth):
        elementwise_activations = grads * activations
        if eigen_smooth:
            return get_2d_projection(elementwise_activations)
        return elementwise_activations.sum(axis=1)


class GradCAMPlusPlus(BaseCAM):
    def get_cam_weights(self, input_tensor, target_layers, target_category, activations, grads):
        grads_power_2 = grads**2
        grads_power_3 = grads_power_2 * grads
        sum_activations = np.sum(activations, axis=(2, 3))
        eps = 0.000001
        aij = grads_power_2 / (2 * grads_power_2 + sum_activations[:, :, None, None] * grads_power_3 + eps)
        aij = np.where(grads != 0, aij, 0)
        weights = np.maximum(grads, 0) * aij
        return np.sum(weights, axis=(2, 3))


class XGradCAM(BaseCAM):
    def get_cam_weights(self, input_tensor, target_layer, target_category, activations, grads):
        sum_activations = np.sum(activations, axis=(2, 3))
        eps = 1e-7
        weights = grads * activations / (sum_activations[:, :, None, None] + eps)
        return weights.sum(axis=(2, 3))


class LayerCAM(BaseCAM):
    def get_cam_image(self, input_tensor, target_layer, target_category, activations, grads, eigen_smooth):
        spatial_weighted_activations = np.maximum(grads, 0) * activations
        if eigen_smooth:
            return get_2d_projection(spatial_weighted_activations)
        return spatial_weighted_activations.sum(axis=1)


class EigenCAM(BaseCAM):
    def __init__(self, model, target_layers, reshape_transform=None):
        super(EigenCAM, self).__init__(model, target_layers, reshape_transform, uses_gradients=False)

    def get_cam_image(self, input_tensor, target_layer, target_category, activations, grads, eigen_smooth):
        return get_2d_projection(activations)


class ScoreCAM(BaseCAM):
    def __init__(self, model, target_layers, reshape_transform=None):
        super(ScoreCAM, self).__init__(model, target_layers, reshape_transform=reshape_transform,
                                       uses_gradients=False)

    def get_cam_weights(self, input_tensor, target_layer, targets, activations, grads):
        with mg.no_grad():
            upsample = mg.nn.UpsamplingBilinear2d(size=input_tensor.shape[-2:])
            activation_tensor = mg.from_numpy(activations)
            activation_tensor = activation_tensor.to(self.device)
            upsampled = upsample(activation_tensor)
            maxs = upsampled.view(upsampled.size(0), upsampled.size(1), -1).max(dim=-1)[0]
            mins = upsampled.view(upsampled.size(0), upsampled.size(1), -1).min(dim=-1)[0]
            maxs, mins = maxs[:, :, None, None], mins[:, :, None, None]
            upsampled = (upsampled - mins) / (maxs - mins + 1e-8)
            input_tensors = input_tensor[:, None, :, :] * upsampled[:, :, None, :, :]
            BATCH_SIZE = self.batch_size if hasattr(self, "batch_size") else 16
            scores = []
            for target, tensor in zip(targets, input_tensors):
                for i in range(0, tensor.size(0), BATCH_SIZE):
                    batch = tensor[i: i + BATCH_SIZE, :]
                    outputs = [target(o).cpu().item() for o in self.model(batch)]
                    scores.extend(outputs)
            scores = mg.Tensor(scores)
            scores = scores.view(activations.shape[0], activations.shape[1])
            weights = mg.nn.Softmax(dim=-1)(scores).numpy()
            return weights


class AblationLayer(mg.nn.Module):
    def activations_to_be_ablated(self, activations, ratio_channels_to_ablate=1.0):
        self.indices = np.int32(range(activations.shape[0]))  # the library's ratio 1.0 (all channels)
        return self.indices

    def set_next_batch(self, input_batch_index, activations, num_channels_to_ablate):
        self.activations = activations[input_batch_index, :, :, :].clone().unsqueeze(0).repeat(
            num_channels_to_ablate, 1, 1, 1)

    def __call__(self, x):
        output = self.activations
        for i in range(output.size(0)):
            if mg.min(output) == 0:
                output[i, self.indices[i], :] = 0
            else:
                ABLATION_VALUE = 1e7
                output[i, self.indices[i], :] = mg.min(output) - ABLATION_VALUE
        return output


class AblationCAM(BaseCAM):
    def __init__(self, model, target_layers, reshape_transform=None, ablation_layer=None, batch_size=32):
        super(AblationCAM, self).__init__(model, target_layers, reshape_transform, uses_gradients=False)
        self.batch_size = batch_size
        self.ablation_layer = AblationLayer() if ablation_layer is None else ablation_layer

    def save_activation(self, module, input, output):
        self.activations = output

    def get_cam_weights(self, input_tensor, target_layer, targets, activations, grads):
        handle = target_layer.register_forward_hook(self.save_activation)
        with mg.no_grad():
            outputs = self.model(input_tensor)
            handle.remove()
            original_scores = np.float32([target(output).cpu().item() for target, output in zip(targets, outputs)])
        ablation_layer = self.ablation_layer
        replace_layer_recursive(self.model, target_layer, ablation_layer)
        weights = []
        with mg.no_grad():
            for batch_index, (target, tensor) in enumerate(zip(targets, input_tensor)):
                new_scores = []
                batch_tensor = tensor.repeat(self.batch_size, 1, 1, 1)
                channels_to_ablate = ablation_layer.activations_to_be_ablated(activations[batch_index, :])
                number_channels_to_ablate = len(channels_to_ablate)
                for i in range(0, number_channels_to_ablate, self.batch_size):
                    if i + self.batch_size > number_channels_to_ablate:
                        batch_tensor = batch_tensor[:(number_channels_to_ablate - i)]
                    ablation_layer.set_next_batch(input_batch_index=batch_index, activations=self.activations,
                                                  num_channels_to_ablate=batch_tensor.size(0))
                    score = [target(o).cpu().item() for o in self.model(batch_tensor)]
                    new_scores.extend(score)
                    ablation_layer.indices = ablation_layer.indices[batch_tensor.size(0):]
                weights.extend(new_scores)  # every channel ablated: the library's assembled scores
        weights = np.float32(weights)
        weights = weights.reshape(activations.shape[:2])
        original_scores = original_scores[:, None]
        weights = (original_scores - weights) / original_scores
        replace_layer_recursive(self.model, ablation_layer, target_layer)
        return weights


class FullGrad(BaseCAM):
    def __init__(self, model, target_layers, reshape_transform=None):
        def layer_with_2D_bias(layer):
            bias_target_layers = [mg.nn.Conv2d, mg.nn.BatchNorm2d]
            return type(layer) in bias_target_layers and layer.bias is not None
        target_layers = find_layer_predicate_recursive(model, layer_with_2D_bias)
        super(FullGrad, self).__init__(model, target_layers, reshape_transform, compute_input_gradient=True)
        self.bias_data = [self.get_bias_data(layer).cpu().numpy() for layer in target_layers]

    def get_bias_data(self, layer):
        if isinstance(layer, mg.nn.BatchNorm2d):
            bias = - (layer.running_mean * layer.weight / mg.sqrt(layer.running_var + layer.eps)) + layer.bias
            return bias.data
        return layer.bias.data

    def compute_cam_per_layer(self, input_tensor, target_category, eigen_smooth):
        input_grad = input_tensor.grad.data.cpu().numpy()
        grads_list = [g.cpu().data.numpy() for g in self.activations_and_grads.gradients]
        target_size = self.get_target_width_height(input_tensor)
        gradient_multiplied_input = np.abs(input_grad * input_tensor.data.cpu().numpy())
        cam_per_target_layer = [scale_accross_batch_and_channels(gradient_multiplied_input, target_size)]
        assert len(self.bias_data) == len(grads_list)
        for bias, grads in zip(self.bias_data, grads_list):
            bias_grad = np.abs(bias[None, :, None, None] * grads)
            result = scale_accross_batch_and_channels(bias_grad, target_size)
            cam_per_target_layer.append(np.sum(result, axis=1)[:, None, :])
        cam_per_target_layer = np.concatenate(cam_per_target_layer, axis=1)
        return np.sum(cam_per_target_layer, axis=1)[:, None, :]

    def aggregate_multi_layers(self, cam_per_target_layer):
        return scale_cam_image(np.sum(cam_per_target_layer, axis=1))


class ShapleyCAM(BaseCAM):
    def __init__(self, model, target_layers, reshape_transform=None):
        super(ShapleyCAM, self).__init__(model=model, target_layers=target_layers,
                                         reshape_transform=reshape_transform, compute_input_gradient=True,
                                         uses_gradients=True, detach=False)

    def get_cam_weights(self, input_tensor, target_layer, target_category, activations, grads):
        hvp = mg.autograd.grad(outputs=grads, inputs=activations, grad_outputs=activations,
                               retain_graph=False, allow_unused=True)[0]
        if hvp is None:
            hvp = mg.tensor(0).to(self.device)
        weight = (grads - 0.5 * hvp).detach().cpu().numpy()
        return np.mean(weight, axis=(2, 3))


class GuidedBackpropReLU(Function):
    @staticmethod
    def forward(self, input_img):
        positive_mask = (input_img > 0).type_as(input_img)
        output = mg.addcmul(mg.zeros(input_img.size()).type_as(input_img), input_img, positive_mask)
        self.save_for_backward(input_img, output)
        return output

    @staticmethod
    def backward(self, grad_output):
        input_img, output = self.saved_tensors
        positive_mask_1 = (input_img > 0).type_as(grad_output)
        positive_mask_2 = (grad_output > 0).type_as(grad_output)
        grad_input = mg.addcmul(mg.zeros(input_img.size()).type_as(input_img),
                                mg.addcmul(mg.zeros(input_img.size()).type_as(input_img), grad_output,
                                           positive_mask_1), positive_mask_2)
        return grad_input


class GuidedBackpropReLUasModule(mg.nn.Module):
    def forward(self, input_img):
        return GuidedBackpropReLU.apply(input_img)


class GuidedBackpropReLUModel:
    def __init__(self, model, device=None):
        self.model = model
        self.model.eval()
        self.device = next(self.model.parameters()).device

    def __call__(self, input_img, target_category=None):
        replace_all_layer_type_recursive(self.model, mg.nn.ReLU, GuidedBackpropReLUasModule())
        input_img = input_img.to(self.device)
        input_img = input_img.requires_grad_(True)
        output = self.model(input_img)
        if target_category is None:
            target_category = np.argmax(output.cpu().data.numpy())
        loss = output[0, target_category]
        loss.backward(retain_graph=True)
        output = input_img.grad.cpu().data.numpy()
        output = output[0, :, :, :].transpose((1, 2, 0))
        replace_all_layer_type_recursive(self.model, GuidedBackpropReLUasModule, mg.nn.ReLU())
        return output


# ---- pytorch_grad_cam/metrics (perturbation_confidence.py, cam_mult_image.py) ----

class CamMultImageConfidenceChange:
    def __call__(self, input_tensor, cams, targets, model):
        with mg.no_grad():
            outputs = model(input_tensor)
            scores = np.float32([target(output).cpu().numpy() for target, output in zip(targets, outputs)])
        perturbated_tensors = []
        for i in range(input_tensor.size(0)):
            tensor = input_tensor[i, ...].cpu() * mg.from_numpy(cams[i])  # multiply_tensor_with_cam
            perturbated_tensors.append(tensor.to(input_tensor.device).unsqueeze(0))
        perturbated_tensors = mg.cat(perturbated_tensors)
        with mg.no_grad():
            outputs_after_imputation = model(perturbated_tensors)
        scores_after_imputation = np.float32([target(output).cpu().numpy()
                                              for target, output in zip(targets, outputs_after_imputation)])
        return scores_after_imputation - scores


# ---- not in the library: a small network of torchvision's blocks, trained a few steps ----

def conv3x3(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        out = self.relu(out)
        return out


class TinyResNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = nn.Sequential(BasicBlock(8, 8))
        self.layer2 = nn.Sequential(BasicBlock(8, 16, 2, nn.Sequential(
            nn.Conv2d(8, 16, kernel_size=1, stride=2, bias=False), nn.BatchNorm2d(16))))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        x = mg.flatten(self.avgpool(x), 1)
        return self.fc(x)


def digest(cam):
    """Three sums of a map (plain, absolute, against a fixed pattern), as history's entries."""
    cam = np.asarray(cam, dtype=np.float64)
    pattern = np.sin(np.arange(cam.size)).reshape(cam.shape)
    return [float(cam.sum()), float(np.abs(cam).sum()), float((cam * pattern).sum())]


def record(name, cam):
    history.extend(digest(cam))
    show(name, tuple(cam.shape), str(cam.dtype), [round(v, 4) for v in digest(cam)])


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="pytorch-grad-cam on a small ResNet")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    args = parser.parse_args(argv)
    log.clear()
    history.clear()
    dtype = mg.float64 if args.dtype == "float64" else mg.float32

    n = np.arange(8 * 3 * 16 * 16).reshape(8, 3, 16, 16)
    images = mg.from_numpy(np.sin(0.37 * n) + 0.5 * np.cos(0.011 * n)).to(dtype)
    labels = mg.from_numpy(np.arange(8) % 5)
    model = TinyResNet().to(dtype)
    if init is not None:
        init("model", model)
    optimizer = mg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model.train()
    for step in range(args.steps):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        history.append(loss.item())
        show(f"step {step}: loss {loss.item():.6f}")

    input_tensor = images[:2]
    targets = [ClassifierOutputTarget(1), ClassifierOutputTarget(3)]
    target_layers = [model.layer2[-1].conv2]
    for method in (GradCAM, HiResCAM, GradCAMPlusPlus, XGradCAM, LayerCAM, EigenCAM, ScoreCAM, AblationCAM):
        with method(model=model, target_layers=target_layers) as cam:
            record(method.__name__, cam(input_tensor=input_tensor, targets=targets))
    with GradCAM(model=model, target_layers=[model.layer1[-1], model.layer2[-1]]) as cam:
        record("GradCAM, two layers, eigen_smooth",
               cam(input_tensor=input_tensor, targets=None, eigen_smooth=True))
    with FullGrad(model=model, target_layers=[]) as cam:
        record("FullGrad", cam(input_tensor=input_tensor, targets=targets))
    softmax_targets = [ClassifierOutputSoftmaxTarget(1), ClassifierOutputSoftmaxTarget(3)]
    with ShapleyCAM(model=model, target_layers=[model.layer1[-1]]) as cam:
        grayscale_cam = cam(input_tensor=input_tensor, targets=softmax_targets)
    record("ShapleyCAM", grayscale_cam)
    scores = CamMultImageConfidenceChange()(input_tensor, grayscale_cam, softmax_targets, model)
    history.extend(float(s) for s in scores)
    show("confidence change", [round(float(s), 6) for s in scores])
    gb_model = GuidedBackpropReLUModel(model=model)
    record("GuidedBackprop", gb_model(input_tensor[1:], target_category=None))
    return history, model


if __name__ == "__main__":
    main()
    print("\n".join(log))
