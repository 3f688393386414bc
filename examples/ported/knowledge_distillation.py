"""PyTorch's "Knowledge Distillation" tutorial (pytorch/tutorials
``beginner_source/knowledge_distillation_tutorial.py``), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/knowledge_distillation.py

A deep convolutional teacher and a light student on CIFAR-10: the student trained alone with cross-entropy;
trained on the teacher's softened logits (softmax / log_softmax at temperature ``T``, the KL term written out,
times ``T**2``); trained to match the teacher's flattened features (``avg_pool1d`` of the teacher's, an
``nn.CosineEmbeddingLoss`` with a target of ones); and trained to match the teacher's last feature map through
a convolutional regressor (``nn.MSELoss``) -- each checked with ``test`` / ``test_multiple_outputs``.  Made
small: 8x8 images of ``tiny_cifar`` (CIFAR-10's 32x32; 64 training and 32 test images in batches of 16), the
teacher's channels 8/8/8/8 and hidden layer 32 (128/64/64/32 and 512), the student's 4/4 and 16 (16/16 and
256), 2 epochs each (10), dropout 0 by default (0.1; two engines' masks differ).  Not in the tutorial: the
teacher's last feature map is also caught by a forward hook on ``features`` and the KL term is compared with
``nn.KLDivLoss(reduction="batchmean")``.  The prints are kept in ``log``; the losses and accuracies are
``main``'s history.  The lines that differ from the tutorial are listed in ``README.md``.
"""

import argparse

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.optim as optim
from tiny_cifar import datasets, transforms

log = []
history = []
HOOK = {}


def show(*args):
    log.append(" ".join(str(a) for a in args))


# Deeper neural network class to be used as teacher:
class DeepNN(nn.Module):
    def __init__(self, num_classes=10, dropout=0.1):
        super(DeepNN, self).__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.Conv2d(8, 8, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(8, 8, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.Conv2d(8, 8, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
        )
        self.classifier = nn.Sequential(
            nn.Linear(32, 32),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(32, num_classes)
        )

    def forward(self, x):
        x = self.features(x)
        x = mg.flatten(x, 1)
        x = self.classifier(x)
        return x


# Lightweight neural network class to be used as student:
class LightNN(nn.Module):
    def __init__(self, num_classes=10, dropout=0.1):
        super(LightNN, self).__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 4, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(4, 4, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
        )
        self.classifier = nn.Sequential(
            nn.Linear(16, 16),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(16, num_classes)
        )

    def forward(self, x):
        x = self.features(x)
        x = mg.flatten(x, 1)
        x = self.classifier(x)
        return x


def train(model, train_loader, epochs, learning_rate, device):
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=learning_rate)

    model.train()

    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            # inputs: A collection of batch_size images
            # labels: A vector of dimensionality batch_size with integers denoting class of each image
            inputs, labels = inputs.to(device), labels.to(device)

            optimizer.zero_grad()
            outputs = model(inputs)

            # outputs: Output of the network for the collection of images. A tensor of dimensionality batch_size x num_classes
            # labels: The actual labels of the images. Vector of dimensionality batch_size
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()

            running_loss += loss.item()

        show(f"Epoch {epoch+1}/{epochs}, Loss: {running_loss / len(train_loader)}")
        history.append(running_loss / len(train_loader))


def test(model, test_loader, device):
    model.to(device)
    model.eval()

    correct = 0
    total = 0

    with mg.no_grad():
        for inputs, labels in test_loader:
            inputs, labels = inputs.to(device), labels.to(device)

            outputs = model(inputs)
            _, predicted = mg.max(outputs.data, dim=1)

            total += labels.size(0)
            correct += (predicted == labels).sum().item()

    accuracy = 100 * correct / total
    show(f"Test Accuracy: {accuracy:.2f}%")
    history.append(accuracy)
    return accuracy


def train_knowledge_distillation(teacher, student, train_loader, epochs, learning_rate, T, soft_target_loss_weight, ce_loss_weight, device):
    ce_loss = nn.CrossEntropyLoss()
    kl_loss = nn.KLDivLoss(reduction="batchmean")
    optimizer = optim.Adam(student.parameters(), lr=learning_rate)

    teacher.eval()  # Teacher set to evaluation mode
    student.train()  # Student to train mode

    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            inputs, labels = inputs.to(device), labels.to(device)

            optimizer.zero_grad()

            # Forward pass with the teacher model - do not save gradients here as we do not change the teacher's weights
            with mg.no_grad():
                teacher_logits = teacher(inputs)

            # Forward pass with the student model
            student_logits = student(inputs)

            #Soften the student logits by applying softmax first and log() second
            soft_targets = nn.functional.softmax(teacher_logits / T, dim=-1)
            soft_prob = nn.functional.log_softmax(student_logits / T, dim=-1)

            # Calculate the soft targets loss. Scaled by T**2 as suggested by the authors of the paper "Distilling the knowledge in a neural network"
            soft_targets_loss = mg.sum(soft_targets * (soft_targets.log() - soft_prob)) / soft_prob.size()[0] * (T**2)
            history.append(kl_loss(soft_prob, soft_targets).item() * T**2 - soft_targets_loss.item())  # not in the tutorial

            # Calculate the true label loss
            label_loss = ce_loss(student_logits, labels)

            # Weighted sum of the two losses
            loss = soft_target_loss_weight * soft_targets_loss + ce_loss_weight * label_loss

            loss.backward()
            optimizer.step()

            running_loss += loss.item()

        show(f"Epoch {epoch+1}/{epochs}, Loss: {running_loss / len(train_loader)}")
        history.append(running_loss / len(train_loader))


class ModifiedDeepNNCosine(DeepNN):
    # (the tutorial repeats DeepNN's layers here: inherited)

    def forward(self, x):
        x = self.features(x)
        flattened_conv_output = mg.flatten(x, 1)
        x = self.classifier(flattened_conv_output)
        flattened_conv_output_after_pooling = mg.nn.functional.avg_pool1d(flattened_conv_output, 2)
        return x, flattened_conv_output_after_pooling


# Create a similar student class where we return a tuple. We do not apply pooling after flattening.
class ModifiedLightNNCosine(LightNN):
    # (the tutorial repeats LightNN's layers here: inherited)

    def forward(self, x):
        x = self.features(x)
        flattened_conv_output = mg.flatten(x, 1)
        x = self.classifier(flattened_conv_output)
        return x, flattened_conv_output


def train_cosine_loss(teacher, student, train_loader, epochs, learning_rate, hidden_rep_loss_weight, ce_loss_weight, device):
    ce_loss = nn.CrossEntropyLoss()
    cosine_loss = nn.CosineEmbeddingLoss()
    optimizer = optim.Adam(student.parameters(), lr=learning_rate)

    teacher.to(device)
    student.to(device)
    teacher.eval()  # Teacher set to evaluation mode
    student.train()  # Student to train mode

    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            inputs, labels = inputs.to(device), labels.to(device)

            optimizer.zero_grad()

            # Forward pass with the teacher model and keep only the hidden representation
            with mg.no_grad():
                _, teacher_hidden_representation = teacher(inputs)

            # Forward pass with the student model
            student_logits, student_hidden_representation = student(inputs)

            # Calculate the cosine loss. Target is a vector of ones. From the loss formula above we can see that is the case where loss minimization leads to cosine similarity increase.
            hidden_rep_loss = cosine_loss(student_hidden_representation, teacher_hidden_representation, target=mg.ones(inputs.size(0)).to(device))

            # Calculate the true label loss
            label_loss = ce_loss(student_logits, labels)

            # Weighted sum of the two losses
            loss = hidden_rep_loss_weight * hidden_rep_loss + ce_loss_weight * label_loss

            loss.backward()
            optimizer.step()

            running_loss += loss.item()

        show(f"Epoch {epoch+1}/{epochs}, Loss: {running_loss / len(train_loader)}")
        history.append(running_loss / len(train_loader))


def test_multiple_outputs(model, test_loader, device):
    model.to(device)
    model.eval()

    correct = 0
    total = 0

    with mg.no_grad():
        for inputs, labels in test_loader:
            inputs, labels = inputs.to(device), labels.to(device)

            outputs, _ = model(inputs) # Disregard the second tensor of the tuple
            _, predicted = mg.max(outputs.data, dim=1)

            total += labels.size(0)
            correct += (predicted == labels).sum().item()

    accuracy = 100 * correct / total
    show(f"Test Accuracy: {accuracy:.2f}%")
    history.append(accuracy)
    return accuracy


class ModifiedDeepNNRegressor(DeepNN):
    # (the tutorial repeats DeepNN's layers here: inherited)

    def forward(self, x):
        x = self.features(x)
        conv_feature_map = x
        x = mg.flatten(x, 1)
        x = self.classifier(x)
        return x, conv_feature_map


class ModifiedLightNNRegressor(LightNN):
    # (the tutorial repeats LightNN's layers here: inherited)
    def __init__(self, num_classes=10, dropout=0.1):
        super(ModifiedLightNNRegressor, self).__init__(num_classes, dropout)
        # Include an extra regressor (in our case linear)
        self.regressor = nn.Sequential(
            nn.Conv2d(4, 8, kernel_size=3, padding=1)
        )

    def forward(self, x):
        x = self.features(x)
        regressor_output = self.regressor(x)
        x = mg.flatten(x, 1)
        x = self.classifier(x)
        return x, regressor_output


def train_mse_loss(teacher, student, train_loader, epochs, learning_rate, feature_map_weight, ce_loss_weight, device):
    ce_loss = nn.CrossEntropyLoss()
    mse_loss = nn.MSELoss()
    optimizer = optim.Adam(student.parameters(), lr=learning_rate)

    teacher.to(device)
    student.to(device)
    teacher.eval()  # Teacher set to evaluation mode
    student.train()  # Student to train mode
    hook = teacher.features.register_forward_hook(lambda module, args, output: HOOK.update(features=output))

    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            inputs, labels = inputs.to(device), labels.to(device)

            optimizer.zero_grad()

            # Again ignore teacher logits
            with mg.no_grad():
                _, teacher_feature_map = teacher(inputs)
            history.append(float(HOOK["features"] is teacher_feature_map))  # not in the tutorial

            # Forward pass with the student model
            student_logits, regressor_feature_map = student(inputs)

            # Calculate the loss
            hidden_rep_loss = mse_loss(regressor_feature_map, teacher_feature_map)

            # Calculate the true label loss
            label_loss = ce_loss(student_logits, labels)

            # Weighted sum of the two losses
            loss = feature_map_weight * hidden_rep_loss + ce_loss_weight * label_loss

            loss.backward()
            optimizer.step()

            running_loss += loss.item()

        show(f"Epoch {epoch+1}/{epochs}, Loss: {running_loss / len(train_loader)}")
        history.append(running_loss / len(train_loader))
    hook.remove()


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="knowledge distillation")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    log.clear()
    history.clear()
    dtype = mg.float64 if args.double else mg.float32
    device = mg.device("cpu")
    epochs, dropout = args.epochs, args.dropout

    # Below we are preprocessing data for CIFAR-10. We use an arbitrary batch size of 128.
    transforms_cifar = transforms.Compose([
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
        lambda x: x.to(dtype),
    ])

    # Loading the CIFAR-10 dataset:
    train_dataset = datasets.CIFAR10(root='./data', train=True, download=True, transform=transforms_cifar, size=64)
    test_dataset = datasets.CIFAR10(root='./data', train=False, download=True, transform=transforms_cifar, size=32)

    #Dataloaders
    train_loader = mg.utils.data.DataLoader(train_dataset, batch_size=16, shuffle=False, num_workers=0)
    test_loader = mg.utils.data.DataLoader(test_dataset, batch_size=16, shuffle=False, num_workers=0)

    def built(key, model):  # the test hook: records or loads the starting weights
        model = model.to(dtype)
        if init is not None:
            init(key, model)
        return model

    mg.manual_seed(42)
    nn_deep = built("deep", DeepNN(num_classes=10, dropout=dropout).to(device))
    train(nn_deep, train_loader, epochs=epochs, learning_rate=0.001, device=device)
    test_accuracy_deep = test(nn_deep, test_loader, device)

    # Instantiate the lightweight network:
    mg.manual_seed(42)
    nn_light = built("light", LightNN(num_classes=10, dropout=dropout).to(device))
    mg.manual_seed(42)
    new_nn_light = LightNN(num_classes=10, dropout=dropout).to(device).to(dtype)
    new_nn_light.load_state_dict(nn_light.state_dict())  # the tutorial's seed 42 again: the same weights

    # Print the norm of the first layer of the initial lightweight model
    show("Norm of 1st layer of nn_light:", round(mg.norm(nn_light.features[0].weight).item(), 5))
    # Print the norm of the first layer of the new lightweight model
    show("Norm of 1st layer of new_nn_light:", round(mg.norm(new_nn_light.features[0].weight).item(), 5))

    total_params_deep = "{:,}".format(sum(p.numel() for p in nn_deep.parameters()))
    show(f"DeepNN parameters: {total_params_deep}")
    total_params_light = "{:,}".format(sum(p.numel() for p in nn_light.parameters()))
    show(f"LightNN parameters: {total_params_light}")

    train(nn_light, train_loader, epochs=epochs, learning_rate=0.001, device=device)
    test_accuracy_light_ce = test(nn_light, test_loader, device)

    show(f"Teacher accuracy: {test_accuracy_deep:.2f}%")
    show(f"Student accuracy: {test_accuracy_light_ce:.2f}%")

    # Apply ``train_knowledge_distillation`` with a temperature of 2. Arbitrarily set the weights to 0.75 for CE and 0.25 for distillation loss.
    train_knowledge_distillation(teacher=nn_deep, student=new_nn_light, train_loader=train_loader, epochs=epochs, learning_rate=0.001, T=2, soft_target_loss_weight=0.25, ce_loss_weight=0.75, device=device)
    test_accuracy_light_ce_and_kd = test(new_nn_light, test_loader, device)

    # Compare the student test accuracy with and without the teacher, after distillation
    show(f"Teacher accuracy: {test_accuracy_deep:.2f}%")
    show(f"Student accuracy without teacher: {test_accuracy_light_ce:.2f}%")
    show(f"Student accuracy with CE + KD: {test_accuracy_light_ce_and_kd:.2f}%")

    # We do not have to train the modified deep network from scratch of course, we just load its weights from the trained instance
    modified_nn_deep = ModifiedDeepNNCosine(num_classes=10, dropout=dropout).to(device).to(dtype)
    modified_nn_deep.load_state_dict(nn_deep.state_dict())

    # Once again ensure the norm of the first layer is the same for both networks
    show("Norm of 1st layer for deep_nn:", round(mg.norm(nn_deep.features[0].weight).item(), 5))
    show("Norm of 1st layer for modified_deep_nn:", round(mg.norm(modified_nn_deep.features[0].weight).item(), 5))

    # Initialize a modified lightweight network with the same seed as our other lightweight instances. This will be trained from scratch to examine the effectiveness of cosine loss minimization.
    mg.manual_seed(42)
    modified_nn_light = built("cosine", ModifiedLightNNCosine(num_classes=10, dropout=dropout).to(device))
    show("Norm of 1st layer:", round(mg.norm(modified_nn_light.features[0].weight).item(), 5))

    # Create a sample input tensor
    sample_input = (mg.arange(16 * 3 * 8 * 8, dtype=dtype).reshape(16, 3, 8, 8) * 0.7548776662).sin().to(device)  # Batch size: 16, Channels: 3, Height: 8, Width: 8

    # Pass the input through the student
    logits, hidden_representation = modified_nn_light(sample_input)

    # Print the shapes of the tensors
    show("Student logits shape:", tuple(logits.shape)) # batch_size x total_classes
    show("Student hidden representation shape:", tuple(hidden_representation.shape)) # batch_size x hidden_representation_size

    # Pass the input through the teacher
    logits, hidden_representation = modified_nn_deep(sample_input)

    # Print the shapes of the tensors
    show("Teacher logits shape:", tuple(logits.shape)) # batch_size x total_classes
    show("Teacher hidden representation shape:", tuple(hidden_representation.shape)) # batch_size x hidden_representation_size

    # Train and test the lightweight network with cross entropy loss
    train_cosine_loss(teacher=modified_nn_deep, student=modified_nn_light, train_loader=train_loader, epochs=epochs, learning_rate=0.001, hidden_rep_loss_weight=0.25, ce_loss_weight=0.75, device=device)
    test_accuracy_light_ce_and_cosine_loss = test_multiple_outputs(modified_nn_light, test_loader, device)

    # Initialize a ModifiedLightNNRegressor
    mg.manual_seed(42)
    modified_nn_light_reg = built("regressor", ModifiedLightNNRegressor(num_classes=10, dropout=dropout).to(device))

    # We do not have to train the modified deep network from scratch of course, we just load its weights from the trained instance
    modified_nn_deep_reg = ModifiedDeepNNRegressor(num_classes=10, dropout=dropout).to(device).to(dtype)
    modified_nn_deep_reg.load_state_dict(nn_deep.state_dict())

    # Train and test once again
    train_mse_loss(teacher=modified_nn_deep_reg, student=modified_nn_light_reg, train_loader=train_loader, epochs=epochs, learning_rate=0.001, feature_map_weight=0.25, ce_loss_weight=0.75, device=device)
    test_accuracy_light_ce_and_mse_loss = test_multiple_outputs(modified_nn_light_reg, test_loader, device)

    show(f"Teacher accuracy: {test_accuracy_deep:.2f}%")
    show(f"Student accuracy without teacher: {test_accuracy_light_ce:.2f}%")
    show(f"Student accuracy with CE + KD: {test_accuracy_light_ce_and_kd:.2f}%")
    show(f"Student accuracy with CE + CosineLoss: {test_accuracy_light_ce_and_cosine_loss:.2f}%")
    show(f"Student accuracy with CE + RegressorMSE: {test_accuracy_light_ce_and_mse_loss:.2f}%")
    for line in log:
        print(line)
    return list(history), (nn_deep, nn_light, modified_nn_light, modified_nn_light_reg, new_nn_light)


if __name__ == "__main__":
    main()
