"""pytorch/examples ``gat/main.py`` (graph attention network), ported to minigrad_ckpt by a
mechanical rename.

    python examples/ported/gat.py --epochs 3

Two graph attention layers: per-head scores ``LeakyReLU(a^T [W h_i || W h_j])`` by broadcasting
against ``.mT``, non-edges masked with ``torch.where(adj_mat > 0, e, -9e16 * ones_like(e))``, a
row softmax, the heads averaged (or concatenated, ``--concat-heads``), ELU between the layers,
``log_softmax`` and ``NLLLoss`` on index masks from ``randperm``; Adam with weight decay.  The
graph (two communities of 24 nodes, bag-of-words features) is made here instead of downloading
Cora, and the adjacency matrix is dense (the original builds it with ``sparse_coo_tensor``);
dropout is 0 (two engines' masks differ); the lines that differ are listed in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import nn
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.optim import Adam


class GraphAttentionLayer(nn.Module):
    def __init__(self, in_features: int, out_features: int, n_heads: int, concat: bool = False,
                 dropout: float = 0.4, leaky_relu_slope: float = 0.2):
        super(GraphAttentionLayer, self).__init__()
        self.n_heads = n_heads  # Number of attention heads
        self.concat = concat  # wether to concatenate the final attention heads
        self.dropout = dropout  # Dropout rate
        if concat:  # concatenating the attention heads
            self.out_features = out_features  # Number of output features per node
            assert out_features % n_heads == 0  # Ensure that out_features is a multiple of n_heads
            self.n_hidden = out_features // n_heads
        else:  # averaging output over the attention heads (Used in the main paper)
            self.n_hidden = out_features
        self.W = nn.Parameter(mg.empty(size=(in_features, self.n_hidden * n_heads)))
        self.a = nn.Parameter(mg.empty(size=(n_heads, 2 * self.n_hidden, 1)))
        self.leakyrelu = nn.LeakyReLU(leaky_relu_slope)  # LeakyReLU activation function
        self.softmax = nn.Softmax(dim=1)  # softmax activation function to the attention coefficients
        self.reset_parameters()  # Reset the parameters

    def reset_parameters(self):
        nn.init.xavier_normal_(self.W)
        nn.init.xavier_normal_(self.a)

    def _get_attention_scores(self, h_transformed: mg.Tensor):
        source_scores = mg.matmul(h_transformed, self.a[:, :self.n_hidden, :])
        target_scores = mg.matmul(h_transformed, self.a[:, self.n_hidden:, :])
        # (n_heads, n_nodes, 1) + (n_heads, 1, n_nodes) = (n_heads, n_nodes, n_nodes)
        e = source_scores + target_scores.mT
        return self.leakyrelu(e)

    def forward(self, h: mg.Tensor, adj_mat: mg.Tensor):
        n_nodes = h.shape[0]
        h_transformed = mg.mm(h, self.W)
        h_transformed = F.dropout(h_transformed, self.dropout, training=self.training)
        # output shape (n_heads, n_nodes, n_hidden)
        h_transformed = h_transformed.view(n_nodes, self.n_heads, self.n_hidden).permute(1, 0, 2)
        e = self._get_attention_scores(h_transformed)
        # Set the attention score for non-existent edges to -9e15 (MASKING NON-EXISTENT EDGES)
        connectivity_mask = -9e16 * mg.ones_like(e)
        e = mg.where(adj_mat > 0, e, connectivity_mask)  # masked attention scores
        attention = F.softmax(e, dim=-1)
        attention = F.dropout(attention, self.dropout, training=self.training)
        h_prime = mg.matmul(attention, h_transformed)
        if self.concat:
            h_prime = h_prime.permute(1, 0, 2).contiguous().view(n_nodes, self.out_features)
        else:
            h_prime = h_prime.mean(dim=0)
        return h_prime


class GAT(nn.Module):
    def __init__(self, in_features, n_hidden, n_heads, num_classes, concat=False, dropout=0.4, leaky_relu_slope=0.2):
        super(GAT, self).__init__()
        self.gat1 = GraphAttentionLayer(
            in_features=in_features, out_features=n_hidden, n_heads=n_heads,
            concat=concat, dropout=dropout, leaky_relu_slope=leaky_relu_slope
        )
        self.gat2 = GraphAttentionLayer(
            in_features=n_hidden, out_features=num_classes, n_heads=1,
            concat=False, dropout=dropout, leaky_relu_slope=leaky_relu_slope
        )

    def forward(self, input_tensor: mg.Tensor, adj_mat: mg.Tensor):
        x = self.gat1(input_tensor, adj_mat)
        x = F.elu(x)  # Apply ELU activation function to the output of the first layer
        x = self.gat2(x, adj_mat)
        return F.log_softmax(x, dim=1)  # Apply log softmax activation function


def load_graph(n=48, n_words=20, seed=0, device='cpu'):
    """Cora's shape, small: word counts per node (one node without words), a label, citations."""
    rng = np.random.default_rng(seed)
    labels_np = np.arange(n) % 2
    words = (rng.random((n, n_words)) < np.where(labels_np[:, None] == (np.arange(n_words) % 2), 0.4, 0.1))
    words[5] = False  # a node without words: its scale is 1/0 = inf, set to 0 below
    same = labels_np[:, None] == labels_np[None, :]
    edges = np.argwhere(np.triu(rng.random((n, n)) < np.where(same, 0.15, 0.02), 1)).astype(np.int32)

    features = mg.FloatTensor(words.astype(np.int32))  # Extract feature values
    scale_vector = mg.sum(features, dim=1)  # Compute sum of features for each node
    scale_vector = 1 / scale_vector  # Compute reciprocal of the sums
    scale_vector[scale_vector == float('inf')] = 0  # Handle division by zero cases
    scale_vector = mg.diag(scale_vector)  # the original makes it sparse: .to_sparse()
    features = scale_vector @ features  # Scale the features using the scale vector
    labels = mg.LongTensor(labels_np)  # Convert labels to a tensor

    V = n  # Number of nodes
    adj_mat = mg.zeros((V, V), dtype=mg.int64)  # the original: sparse_coo_tensor(edges.T, ones(E), (V, V))
    adj_mat[edges[:, 0], edges[:, 1]] = 1
    adj_mat = mg.eye(V) + adj_mat  # Add self-loops to the adjacency matrix
    return features.to(device), labels.to(device), adj_mat.to(device)


def train_iter(epoch, model, optimizer, criterion, input, target, mask_train, mask_val, print_every=10):
    model.train()
    optimizer.zero_grad()
    output = model(*input)
    loss = criterion(output[mask_train], target[mask_train])  # Compute the loss using the training mask
    loss.backward()
    optimizer.step()
    loss_train, acc_train = test(model, criterion, input, target, mask_train)
    loss_val, acc_val = test(model, criterion, input, target, mask_val)
    if epoch % print_every == 0:
        print(f'Epoch: {epoch:04d} loss_train: {loss_train:.4f} acc_train: {acc_train:.4f} '
              f'loss_val: {loss_val:.4f} acc_val: {acc_val:.4f}')
    return [loss.item(), loss_train, acc_train, loss_val, acc_val]


def test(model, criterion, input, target, mask):
    model.eval()
    with mg.no_grad():
        output = model(*input)
        output, target = output[mask], target[mask]
        loss = criterion(output, target)
        acc = (output.argmax(dim=1) == target).float().sum() / len(target)
    return loss.item(), acc.item()


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='PyTorch Graph Attention Network')
    parser.add_argument('--epochs', type=int, default=3)
    parser.add_argument('--lr', type=float, default=0.005)
    parser.add_argument('--l2', type=float, default=5e-4)
    parser.add_argument('--dropout-p', type=float, default=0.0)
    parser.add_argument('--hidden-dim', type=int, default=8)
    parser.add_argument('--num-heads', type=int, default=4)
    parser.add_argument('--concat-heads', action='store_true')
    parser.add_argument('--val-every', type=int, default=1)
    parser.add_argument('--seed', type=int, default=13, metavar='S')
    args = parser.parse_args(argv)
    mg.manual_seed(args.seed)
    device = mg.device('cpu')

    features, labels, adj_mat = load_graph(device=device)
    idx = mg.randperm(len(labels)).to(device)
    idx_test, idx_val, idx_train = idx[:12], idx[12:24], idx[24:]

    gat_net = GAT(
        in_features=features.shape[1],          # Number of input features per node
        n_hidden=args.hidden_dim,               # Output size of the first Graph Attention Layer
        n_heads=args.num_heads,                 # Number of attention heads in the first Graph Attention Layer
        num_classes=labels.max().item() + 1,    # Number of classes to predict for each node
        concat=args.concat_heads,               # Wether to concatinate attention heads
        dropout=args.dropout_p,                 # Dropout rate
        leaky_relu_slope=0.2                    # Alpha (slope) of the leaky relu activation
    ).to(device)
    if init is not None:  # a test hook: records or loads the starting weights
        init('gat', gat_net)

    optimizer = Adam(gat_net.parameters(), lr=args.lr, weight_decay=args.l2)
    criterion = nn.NLLLoss()
    history = []
    for epoch in range(args.epochs):
        history += train_iter(epoch + 1, gat_net, optimizer, criterion, (features, adj_mat), labels,
                              idx_train, idx_val, args.val_every)
    loss_test, acc_test = test(gat_net, criterion, (features, adj_mat), labels, idx_test)
    print(f'Test set results: loss {loss_test:.4f} accuracy {acc_test:.4f}')
    return history + [loss_test, acc_test], gat_net


if __name__ == '__main__':
    main()
