"""YOLO (v1) from scratch: aladdinpersson's Machine-Learning-Collection ``ML/Pytorch/object_detection/YOLO``
(``model.py``'s ``Yolov1`` with BatchNorm, ``loss.py``'s ``YoloLoss``, ``utils.py``'s
``intersection_over_union``, ``non_max_suppression``, ``mean_average_precision``, ``convert_cellboxes``,
``cellboxes_to_boxes`` and ``get_bboxes``, ``dataset.py``'s label matrix and ``train.py``'s ``train_fn``),
ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/yolo_v1.py --double

Made small: a 112x112 input and a darknet of four convolution blocks (the original's 448x448 and
twenty-four) that still ends in the 7x7 grid, a 64-wide head (496), synthetic images of painted boxes with
VOC-style labels (Pascal VOC), 3 steps of Adam on batches of 4.  It exercises ``torch.max(ious, dim=0)``'s
int64 indices in float arithmetic, the loss's slice writes into a non-leaf (``box_predictions[..., 2:4] =``),
``flatten(end_dim=-2)``, the label matrix's writes (``label_matrix[i, j, 21:25] = torch.tensor(...)``),
``torch.cat`` of an int64 ``torch.tensor([1])`` with float32 precisions, ``torch.trapz``, ``cumsum``, one-element
tensors compared with ``>`` and ``<`` in Python ``if``s, ``arange(7).repeat(...)``, a float tensor's slice
assigned its own ``.long()``, and ``.item()`` over every box.  The lines that differ are listed in ``README.md``.
"""

import argparse
from collections import Counter

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.optim as optim

# (kernel_size, filters, stride, padding); "M" a 2x2 max-pool; a list: two convs and their repeats
architecture_config = [
    (7, 8, 2, 3),
    "M",
    (3, 16, 1, 1),
    "M",
    [(1, 8, 1, 0), (3, 16, 1, 1), 2],
    "M",
    (3, 32, 1, 1),
]


class CNNBlock(nn.Module):
    def __init__(self, in_channels, out_channels, **kwargs):
        super(CNNBlock, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, bias=False, **kwargs)
        self.batchnorm = nn.BatchNorm2d(out_channels)
        self.leakyrelu = nn.LeakyReLU(0.1)

    def forward(self, x):
        return self.leakyrelu(self.batchnorm(self.conv(x)))


class Yolov1(nn.Module):
    def __init__(self, in_channels=3, **kwargs):
        super(Yolov1, self).__init__()
        self.architecture = architecture_config
        self.in_channels = in_channels
        self.darknet = self._create_conv_layers(self.architecture)
        self.fcs = self._create_fcs(**kwargs)

    def forward(self, x):
        x = self.darknet(x)
        return self.fcs(mg.flatten(x, start_dim=1))

    def _create_conv_layers(self, architecture):
        layers = []
        in_channels = self.in_channels

        for x in architecture:
            if type(x) == tuple:
                layers += [
                    CNNBlock(
                        in_channels, x[1], kernel_size=x[0], stride=x[2], padding=x[3],
                    )
                ]
                in_channels = x[1]

            elif type(x) == str:
                layers += [nn.MaxPool2d(kernel_size=(2, 2), stride=(2, 2))]

            elif type(x) == list:
                conv1 = x[0]
                conv2 = x[1]
                num_repeats = x[2]

                for _ in range(num_repeats):
                    layers += [
                        CNNBlock(
                            in_channels,
                            conv1[1],
                            kernel_size=conv1[0],
                            stride=conv1[2],
                            padding=conv1[3],
                        )
                    ]
                    layers += [
                        CNNBlock(
                            conv1[1],
                            conv2[1],
                            kernel_size=conv2[0],
                            stride=conv2[2],
                            padding=conv2[3],
                        )
                    ]
                    in_channels = conv2[1]

        return nn.Sequential(*layers)

    def _create_fcs(self, split_size, num_boxes, num_classes):
        S, B, C = split_size, num_boxes, num_classes

        return nn.Sequential(
            nn.Flatten(),
            nn.Linear(32 * S * S, 64),
            nn.Dropout(0.0),
            nn.LeakyReLU(0.1),
            nn.Linear(64, S * S * (C + B * 5)),
        )


def intersection_over_union(boxes_preds, boxes_labels, box_format="midpoint"):
    if box_format == "midpoint":
        box1_x1 = boxes_preds[..., 0:1] - boxes_preds[..., 2:3] / 2
        box1_y1 = boxes_preds[..., 1:2] - boxes_preds[..., 3:4] / 2
        box1_x2 = boxes_preds[..., 0:1] + boxes_preds[..., 2:3] / 2
        box1_y2 = boxes_preds[..., 1:2] + boxes_preds[..., 3:4] / 2
        box2_x1 = boxes_labels[..., 0:1] - boxes_labels[..., 2:3] / 2
        box2_y1 = boxes_labels[..., 1:2] - boxes_labels[..., 3:4] / 2
        box2_x2 = boxes_labels[..., 0:1] + boxes_labels[..., 2:3] / 2
        box2_y2 = boxes_labels[..., 1:2] + boxes_labels[..., 3:4] / 2

    if box_format == "corners":
        box1_x1 = boxes_preds[..., 0:1]
        box1_y1 = boxes_preds[..., 1:2]
        box1_x2 = boxes_preds[..., 2:3]
        box1_y2 = boxes_preds[..., 3:4]  # (N, 1)
        box2_x1 = boxes_labels[..., 0:1]
        box2_y1 = boxes_labels[..., 1:2]
        box2_x2 = boxes_labels[..., 2:3]
        box2_y2 = boxes_labels[..., 3:4]

    x1 = mg.max(box1_x1, box2_x1)
    y1 = mg.max(box1_y1, box2_y1)
    x2 = mg.min(box1_x2, box2_x2)
    y2 = mg.min(box1_y2, box2_y2)

    # .clamp(0) is for the case when they do not intersect
    intersection = (x2 - x1).clamp(0) * (y2 - y1).clamp(0)

    box1_area = abs((box1_x2 - box1_x1) * (box1_y2 - box1_y1))
    box2_area = abs((box2_x2 - box2_x1) * (box2_y2 - box2_y1))

    return intersection / (box1_area + box2_area - intersection + 1e-6)


def non_max_suppression(bboxes, iou_threshold, threshold, box_format="corners"):
    assert type(bboxes) == list

    bboxes = [box for box in bboxes if box[1] > threshold]
    bboxes = sorted(bboxes, key=lambda x: x[1], reverse=True)
    bboxes_after_nms = []

    while bboxes:
        chosen_box = bboxes.pop(0)

        bboxes = [
            box
            for box in bboxes
            if box[0] != chosen_box[0]
            or intersection_over_union(
                mg.tensor(chosen_box[2:]),
                mg.tensor(box[2:]),
                box_format=box_format,
            )
            < iou_threshold
        ]

        bboxes_after_nms.append(chosen_box)

    return bboxes_after_nms


def mean_average_precision(
    pred_boxes, true_boxes, iou_threshold=0.5, box_format="midpoint", num_classes=20
):
    average_precisions = []
    epsilon = 1e-6

    for c in range(num_classes):
        detections = []
        ground_truths = []

        for detection in pred_boxes:
            if detection[1] == c:
                detections.append(detection)

        for true_box in true_boxes:
            if true_box[1] == c:
                ground_truths.append(true_box)

        # how many ground truth boxes each training example has, as a tensor of zeros per example
        amount_bboxes = Counter([gt[0] for gt in ground_truths])
        for key, val in amount_bboxes.items():
            amount_bboxes[key] = mg.zeros(val)

        detections.sort(key=lambda x: x[2], reverse=True)
        TP = mg.zeros((len(detections)))
        FP = mg.zeros((len(detections)))
        total_true_bboxes = len(ground_truths)

        if total_true_bboxes == 0:
            continue

        for detection_idx, detection in enumerate(detections):
            ground_truth_img = [
                bbox for bbox in ground_truths if bbox[0] == detection[0]
            ]

            best_iou = 0

            for idx, gt in enumerate(ground_truth_img):
                iou = intersection_over_union(
                    mg.tensor(detection[3:]),
                    mg.tensor(gt[3:]),
                    box_format=box_format,
                )

                if iou > best_iou:
                    best_iou = iou
                    best_gt_idx = idx

            if best_iou > iou_threshold:
                # only detect ground truth detection once
                if amount_bboxes[detection[0]][best_gt_idx] == 0:
                    TP[detection_idx] = 1
                    amount_bboxes[detection[0]][best_gt_idx] = 1
                else:
                    FP[detection_idx] = 1
            else:
                FP[detection_idx] = 1

        TP_cumsum = mg.cumsum(TP, dim=0)
        FP_cumsum = mg.cumsum(FP, dim=0)
        recalls = TP_cumsum / (total_true_bboxes + epsilon)
        precisions = mg.divide(TP_cumsum, (TP_cumsum + FP_cumsum + epsilon))
        precisions = mg.cat((mg.tensor([1]), precisions))
        recalls = mg.cat((mg.tensor([0]), recalls))
        # torch.trapz for numerical integration
        average_precisions.append(mg.trapz(precisions, recalls))

    return sum(average_precisions) / len(average_precisions)


def get_bboxes(loader, model, iou_threshold, threshold, pred_format="cells", box_format="midpoint",
               device="cpu"):
    all_pred_boxes = []
    all_true_boxes = []

    # make sure model is in eval before get bboxes
    model.eval()
    train_idx = 0

    for batch_idx, (x, labels) in enumerate(loader):
        x = x.to(device)
        labels = labels.to(device)

        with mg.no_grad():
            predictions = model(x)

        batch_size = x.shape[0]
        true_bboxes = cellboxes_to_boxes(labels)
        bboxes = cellboxes_to_boxes(predictions)

        for idx in range(batch_size):
            nms_boxes = non_max_suppression(
                bboxes[idx],
                iou_threshold=iou_threshold,
                threshold=threshold,
                box_format=box_format,
            )

            for nms_box in nms_boxes:
                all_pred_boxes.append([train_idx] + nms_box)

            for box in true_bboxes[idx]:
                # many will get converted to 0 pred
                if box[1] > threshold:
                    all_true_boxes.append([train_idx] + box)

            train_idx += 1

    model.train()
    return all_pred_boxes, all_true_boxes


def convert_cellboxes(predictions, S=7):
    predictions = predictions.to("cpu")
    batch_size = predictions.shape[0]
    predictions = predictions.reshape(batch_size, 7, 7, 30)
    bboxes1 = predictions[..., 21:25]
    bboxes2 = predictions[..., 26:30]
    scores = mg.cat(
        (predictions[..., 20].unsqueeze(0), predictions[..., 25].unsqueeze(0)), dim=0
    )
    best_box = scores.argmax(0).unsqueeze(-1)
    best_boxes = bboxes1 * (1 - best_box) + best_box * bboxes2
    cell_indices = mg.arange(7).repeat(batch_size, 7, 1).unsqueeze(-1)
    x = 1 / S * (best_boxes[..., :1] + cell_indices)
    y = 1 / S * (best_boxes[..., 1:2] + cell_indices.permute(0, 2, 1, 3))
    w_y = 1 / S * best_boxes[..., 2:4]
    converted_bboxes = mg.cat((x, y, w_y), dim=-1)
    predicted_class = predictions[..., :20].argmax(-1).unsqueeze(-1)
    best_confidence = mg.max(predictions[..., 20], predictions[..., 25]).unsqueeze(
        -1
    )
    converted_preds = mg.cat(
        (predicted_class, best_confidence, converted_bboxes), dim=-1
    )

    return converted_preds


def cellboxes_to_boxes(out, S=7):
    converted_pred = convert_cellboxes(out).reshape(out.shape[0], S * S, -1)
    converted_pred[..., 0] = converted_pred[..., 0].long()
    all_bboxes = []

    for ex_idx in range(out.shape[0]):
        bboxes = []

        for bbox_idx in range(S * S):
            bboxes.append([x.item() for x in converted_pred[ex_idx, bbox_idx, :]])
        all_bboxes.append(bboxes)

    return all_bboxes


class YoloLoss(nn.Module):
    def __init__(self, S=7, B=2, C=20):
        super(YoloLoss, self).__init__()
        self.mse = nn.MSELoss(reduction="sum")
        self.S = S
        self.B = B
        self.C = C
        self.lambda_noobj = 0.5
        self.lambda_coord = 5

    def forward(self, predictions, target):
        predictions = predictions.reshape(-1, self.S, self.S, self.C + self.B * 5)

        iou_b1 = intersection_over_union(predictions[..., 21:25], target[..., 21:25])
        iou_b2 = intersection_over_union(predictions[..., 26:30], target[..., 21:25])
        ious = mg.cat([iou_b1.unsqueeze(0), iou_b2.unsqueeze(0)], dim=0)

        # bestbox: the indices 0, 1 of the better of the two predicted boxes
        iou_maxes, bestbox = mg.max(ious, dim=0)
        exists_box = target[..., 20].unsqueeze(3)  # in paper this is Iobj_i

        # FOR BOX COORDINATES
        box_predictions = exists_box * (
            (
                bestbox * predictions[..., 26:30]
                + (1 - bestbox) * predictions[..., 21:25]
            )
        )

        box_targets = exists_box * target[..., 21:25]

        # Take sqrt of width, height of boxes to ensure that
        box_predictions[..., 2:4] = mg.sign(box_predictions[..., 2:4]) * mg.sqrt(
            mg.abs(box_predictions[..., 2:4] + 1e-6)
        )
        box_targets[..., 2:4] = mg.sqrt(box_targets[..., 2:4])

        box_loss = self.mse(
            mg.flatten(box_predictions, end_dim=-2),
            mg.flatten(box_targets, end_dim=-2),
        )

        # FOR OBJECT LOSS
        pred_box = (
            bestbox * predictions[..., 25:26] + (1 - bestbox) * predictions[..., 20:21]
        )

        object_loss = self.mse(
            mg.flatten(exists_box * pred_box),
            mg.flatten(exists_box * target[..., 20:21] * iou_maxes),
        )

        # FOR NO OBJECT LOSS
        no_object_loss = self.mse(
            mg.flatten((1 - exists_box) * predictions[..., 20:21], start_dim=1),
            mg.flatten((1 - exists_box) * target[..., 20:21], start_dim=1),
        )

        no_object_loss += self.mse(
            mg.flatten((1 - exists_box) * predictions[..., 25:26], start_dim=1),
            mg.flatten((1 - exists_box) * target[..., 20:21], start_dim=1)
        )

        # FOR CLASS LOSS
        class_loss = self.mse(
            mg.flatten(exists_box * predictions[..., :20], end_dim=-2,),
            mg.flatten(exists_box * target[..., :20], end_dim=-2,),
        )

        loss = (
            self.lambda_coord * box_loss  # first two rows in paper
            + object_loss  # third row in paper
            + self.lambda_noobj * no_object_loss  # forth row
            + class_loss  # fifth row
        )

        return loss


def label_matrix_of(boxes, S=7, B=2, C=20):
    """dataset.py's ``VOCDataset.__getitem__`` after the image: the boxes (class, x, y, w, h) into cells."""
    boxes = mg.tensor(boxes)
    label_matrix = mg.zeros((S, S, C + 5 * B))
    for box in boxes:
        class_label, x, y, width, height = box.tolist()
        class_label = int(class_label)

        # i,j represents the cell row and cell column
        i, j = int(S * y), int(S * x)
        x_cell, y_cell = S * x - j, S * y - i
        width_cell, height_cell = (
            width * S,
            height * S,
        )

        # one object per cell
        if label_matrix[i, j, 20] == 0:
            label_matrix[i, j, 20] = 1
            box_coordinates = mg.tensor(
                [x_cell, y_cell, width_cell, height_cell]
            )
            label_matrix[i, j, 21:25] = box_coordinates
            label_matrix[i, j, class_label] = 1

    return label_matrix


def synthetic_voc(rng, n, size=112):
    """Images with painted boxes, and their VOC-style labels (class, x, y, w, h), from NumPy."""
    images, labels = [], []
    for _ in range(n):
        image = rng.uniform(0.0, 0.2, (3, size, size))
        boxes = []
        for _ in range(rng.integers(1, 4)):
            cls = int(rng.integers(0, 20))
            w, h = rng.uniform(0.1, 0.4, 2)
            x, y = rng.uniform(w / 2, 1 - w / 2), rng.uniform(h / 2, 1 - h / 2)
            x0, x1 = int((x - w / 2) * size), int((x + w / 2) * size)
            y0, y1 = int((y - h / 2) * size), int((y + h / 2) * size)
            image[cls % 3, y0:y1, x0:x1] += 0.5 + cls / 40
            boxes.append([cls, x, y, w, h])
        images.append(image)
        labels.append(boxes)
    return np.stack(images), labels


def train_fn(train_loader, model, optimizer, loss_fn, DEVICE="cpu"):
    mean_loss = []

    for batch_idx, (x, y) in enumerate(train_loader):
        x, y = x.to(DEVICE), y.to(DEVICE)
        out = model(x)
        loss = loss_fn(out, y)
        mean_loss.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    print(f"Mean loss was {sum(mean_loss)/len(mean_loss)}")
    return mean_loss


def noisy_detections(rng, true_boxes):
    """Detections near the true boxes, with scores (and a few of the wrong class), for the metrics."""
    preds = []
    for box in true_boxes:
        shift = rng.normal(0, 0.03, 4)
        cls = box[1] if rng.uniform() < 0.8 else (box[1] + 1) % 20
        preds.append([box[0], cls, float(rng.uniform(0.3, 1.0)), *[v + s for v, s in zip(box[3:], shift)]])
    return preds


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='YOLO v1')
    parser.add_argument('--steps', type=int, default=3)
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    mg.manual_seed(123)
    dtype = mg.float64 if args.double else mg.float32
    rng = np.random.default_rng(0)
    model = Yolov1(split_size=7, num_boxes=2, num_classes=20).to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    optimizer = optim.Adam(model.parameters(), lr=2e-5, weight_decay=0)
    loss_fn = YoloLoss()

    images, labels = synthetic_voc(rng, 4 * args.steps)
    targets = mg.stack([label_matrix_of(boxes) for boxes in labels]).to(dtype)
    train_loader = [(mg.tensor(images[4 * k:4 * k + 4]).to(dtype), targets[4 * k:4 * k + 4])
                    for k in range(args.steps)]

    history = train_fn(train_loader, model, optimizer, loss_fn)

    for threshold in (0.4, 0.0):  # train.py's 0.4 keeps none of a 3-step model's boxes; 0.0 keeps all
        pred_boxes, target_boxes = get_bboxes(train_loader, model, iou_threshold=0.5, threshold=threshold)
        history.append(len(pred_boxes))
        history.append(len(target_boxes))
        history.append(float(mean_average_precision(pred_boxes, target_boxes, iou_threshold=0.5,
                                                    box_format="midpoint")))
    detections = noisy_detections(rng, target_boxes)
    for iou_threshold in (0.5, 0.75):
        history.append(float(mean_average_precision(detections, target_boxes, iou_threshold=iou_threshold)))
    kept = non_max_suppression([d[1:] for d in detections], iou_threshold=0.3, threshold=0.5,
                               box_format="midpoint")
    history.append(len(kept))
    return history, model


if __name__ == '__main__':
    history, _ = main()
    print(history)
