"""The PyTorch tutorial "Adversarial Example Generation" (``beginner_source/fgsm_tutorial.py``),
ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/fgsm.py

The fast gradient sign method: the loss's gradient with respect to the input image
(``data.requires_grad = True``, ``data.grad.data``), its sign times epsilon added to the image,
clamped to [0, 1], and the model (in eval mode, its dropout layers idle) asked again.  Made small:
:mod:`local_data`'s synthetic digits instead of MNIST, a LeNet of the tutorial's shape with fewer
channels (8 and 16, a hidden layer of 32), and -- instead of the tutorial's downloaded
``lenet_mnist_model.pth`` -- ``pretrain``, a few Adam steps on the training digits; ``--double``
runs in float64.  The lines that differ are listed in ``README.md``.
"""

from __future__ import print_function

import argparse

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
from local_data import datasets, transforms

epsilons = [0, .05, .1, .15, .2, .25, .3]


# LeNet Model definition
class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(2304, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = mg.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


# FGSM attack code
def fgsm_attack(image, epsilon, data_grad):
    # Collect the element-wise sign of the data gradient
    sign_data_grad = data_grad.sign()
    # Create the perturbed image by adjusting each pixel of the input image
    perturbed_image = image + epsilon*sign_data_grad
    # Adding clipping to maintain [0,1] range
    perturbed_image = mg.clamp(perturbed_image, 0, 1)
    # Return the perturbed image
    return perturbed_image


# restores the tensors to their original scale
def denorm(batch, mean=[0.1307], std=[0.3081]):
    if isinstance(mean, list):
        mean = mg.tensor(mean).to(batch.dtype)
    if isinstance(std, list):
        std = mg.tensor(std).to(batch.dtype)

    return batch * std.view(1, -1, 1, 1) + mean.view(1, -1, 1, 1)


def test(model, test_loader, epsilon, dtype):

    # Accuracy counter
    correct = 0
    adv_examples = []

    # Loop over all examples in test set
    for data, target in test_loader:

        data = data.to(dtype)

        # Set requires_grad attribute of tensor. Important for Attack
        data.requires_grad = True

        # Forward pass the data through the model
        output = model(data)
        init_pred = output.max(1, keepdim=True)[1]  # get the index of the max log-probability

        # If the initial prediction is wrong, don't bother attacking, just move on
        if init_pred.item() != target.item():
            continue

        # Calculate the loss
        loss = F.nll_loss(output, target)

        # Zero all existing gradients
        model.zero_grad()

        # Calculate gradients of model in backward pass
        loss.backward()

        # Collect ``datagrad``
        data_grad = data.grad.data

        # Restore the data to its original scale
        data_denorm = denorm(data)

        # Call FGSM Attack
        perturbed_data = fgsm_attack(data_denorm, epsilon, data_grad)

        # Reapply normalization
        perturbed_data_normalized = transforms.Normalize((0.1307,), (0.3081,))(perturbed_data)

        # Re-classify the perturbed image
        output = model(perturbed_data_normalized)

        # Check for success
        final_pred = output.max(1, keepdim=True)[1]  # get the index of the max log-probability
        if final_pred.item() == target.item():
            correct += 1
            # Special case for saving 0 epsilon examples
            if epsilon == 0 and len(adv_examples) < 5:
                adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
                adv_examples.append((init_pred.item(), final_pred.item(), adv_ex))
        else:
            # Save some adv examples for visualization later
            if len(adv_examples) < 5:
                adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
                adv_examples.append((init_pred.item(), final_pred.item(), adv_ex))

    # Calculate final accuracy for this epsilon
    final_acc = correct/float(len(test_loader))
    print(f"Epsilon: {epsilon}\tTest Accuracy = {correct} / {len(test_loader)} = {final_acc}")

    # Return the accuracy and an adversarial example
    return final_acc, adv_examples


def pretrain(model, train_loader, dtype, steps):
    """Not in the tutorial (it loads trained weights): a few Adam steps, in eval mode (the two
    engines' dropout masks differ); returns the losses."""
    optimizer = mg.optim.Adam(model.parameters(), lr=3e-3)
    losses = []
    while len(losses) < steps:
        for data, target in train_loader:
            optimizer.zero_grad()
            loss = F.nll_loss(model(data.to(dtype)), target)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            if len(losses) == steps:
                break
    return losses


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='FGSM')
    parser.add_argument('--double', action='store_true')
    parser.add_argument('--pretrain-steps', type=int, default=16)
    parser.add_argument('--test-size', type=int, default=12)
    args = parser.parse_args(argv)
    # Set random seed for reproducibility
    mg.manual_seed(42)
    dtype = mg.float64 if args.double else mg.float32
    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_loader = mg.utils.data.DataLoader(
        datasets.MNIST('../data', train=True, download=True, transform=transform, size=64),
        batch_size=16, shuffle=False)
    # MNIST Test dataset and dataloader declaration
    test_loader = mg.utils.data.DataLoader(
        datasets.MNIST('../data', train=False, download=True, transform=transform, size=args.test_size),
        batch_size=1, shuffle=False)

    # Initialize the network
    model = Net().to(dtype=dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    model.eval()
    history = pretrain(model, train_loader, dtype, args.pretrain_steps)

    accuracies = []
    examples = []

    # Run test for each epsilon
    for eps in epsilons:
        acc, ex = test(model, test_loader, eps, dtype)
        accuracies.append(acc)
        examples.append(ex)
    history += accuracies
    for ex in examples:  # the tutorial plots them: here their predictions and pixel sums
        for init_pred, final_pred, adv_ex in ex:
            history += [init_pred, final_pred, float(adv_ex.sum())]
    return history, model


if __name__ == '__main__':
    main()
