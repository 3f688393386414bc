"""pytorch/examples ``gcn/main.py`` (graph convolutional network), ported to minigrad_ckpt by a
mechanical rename.

    python examples/ported/gcn.py --epochs 3 --include-bias

Two graph convolutions ``A_hat @ (H @ W)`` with ``torch.spmm`` (``mg.spmm``), the kernel an
``nn.Parameter(torch.Tensor(in, out))`` filled by ``xavier_normal_``; the adjacency renormalized
as ``D^-1/2 (A + I) D^-1/2`` with ``sqrt(1 / degree)`` and its ``inf`` mended; ``log_softmax``,
``NLLLoss`` on index masks from ``randperm``, Adam with weight decay.  The graph is made here
(the same kind as ``gat.py``'s) instead of downloading Cora, dense instead of sparse; dropout
is 0; ``train_iter`` and ``test`` are ``gat.py``'s (the originals' are the same text); the lines
that differ are listed in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import nn
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.optim import Adam
from gat import test, train_iter  # the original's two functions are gat/main.py's, line for line


class GraphConv(nn.Module):
    def __init__(self, input_dim, output_dim, use_bias=False):
        super(GraphConv, self).__init__()
        self.kernel = nn.Parameter(mg.Tensor(input_dim, output_dim))
        nn.init.xavier_normal_(self.kernel)  # Initialize the weights using Xavier initialization
        self.bias = None
        if use_bias:
            self.bias = nn.Parameter(mg.Tensor(output_dim))
            nn.init.zeros_(self.bias)  # Initialize the bias to zeros

    def forward(self, input_tensor, adj_mat):
        support = mg.mm(input_tensor, self.kernel)  # Matrix multiplication between input and weight matrix
        output = mg.spmm(adj_mat, support)  # Sparse matrix multiplication between adjacency matrix and support
        if self.bias is not None:
            output = output + self.bias
        return output


class GCN(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim, use_bias=True, dropout_p=0.1):
        super(GCN, self).__init__()
        self.gc1 = GraphConv(input_dim, hidden_dim, use_bias=use_bias)
        self.gc2 = GraphConv(hidden_dim, output_dim, use_bias=use_bias)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input_tensor, adj_mat):
        x = self.gc1(input_tensor, adj_mat)
        x = F.relu(x)  # Apply ReLU activation function
        x = self.dropout(x)  # Apply dropout regularization
        x = self.gc2(x, adj_mat)
        return F.log_softmax(x, dim=1)


def load_graph(n=40, n_words=16, seed=1, device='cpu'):
    """Cora's shape, small: word counts per node, a label, citations (one node cites nothing)."""
    rng = np.random.default_rng(seed)
    labels_np = np.arange(n) % 2
    words = rng.random((n, n_words)) < np.where(labels_np[:, None] == (np.arange(n_words) % 2), 0.4, 0.1)
    words[:, 0] |= ~words.any(axis=1)  # every node has a word here
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
    adj_mat = mg.zeros((V, V))  # the original: sparse_coo_tensor(edges.T, ones(E), (V, V), dtype=int64)
    adj_mat[edges[:, 0], edges[:, 1]] = 1
    adj_mat = mg.eye(V) + adj_mat  # Add self-loops to the adjacency matrix

    degree_mat = mg.sum(adj_mat, dim=1)  # Compute the sum of each row in the adjacency matrix (degree matrix)
    degree_mat = mg.sqrt(1 / degree_mat)  # Compute the reciprocal square root of the degrees
    degree_mat[degree_mat == float('inf')] = 0  # Handle division by zero cases
    degree_mat = mg.diag(degree_mat)  # the original makes it sparse: .to_sparse()

    adj_mat = degree_mat @ adj_mat @ degree_mat  # Apply the renormalization trick
    return features.to(device), labels.to(device), adj_mat.to(device)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='PyTorch Graph Convolutional Network')
    parser.add_argument('--epochs', type=int, default=3)
    parser.add_argument('--lr', type=float, default=0.01)
    parser.add_argument('--l2', type=float, default=5e-4)
    parser.add_argument('--dropout-p', type=float, default=0.0)
    parser.add_argument('--hidden-dim', type=int, default=8)
    parser.add_argument('--val-every', type=int, default=1)
    parser.add_argument('--include-bias', action='store_true')
    parser.add_argument('--seed', type=int, default=42, metavar='S')
    args = parser.parse_args(argv)
    mg.manual_seed(args.seed)
    device = mg.device('cpu')

    features, labels, adj_mat = load_graph(device=device)
    idx = mg.randperm(len(labels)).to(device)
    idx_test, idx_val, idx_train = idx[:10], idx[10:20], idx[20:]

    gcn = GCN(features.shape[1], args.hidden_dim, labels.max().item() + 1, args.include_bias,
              args.dropout_p).to(device)
    if init is not None:  # a test hook: records or loads the starting weights
        init('gcn', gcn)
    optimizer = Adam(gcn.parameters(), lr=args.lr, weight_decay=args.l2)
    criterion = nn.NLLLoss()
    history = []
    for epoch in range(args.epochs):
        history += train_iter(epoch + 1, gcn, optimizer, criterion, (features, adj_mat), labels,
                              idx_train, idx_val, args.val_every)
    loss_test, acc_test = test(gcn, criterion, (features, adj_mat), labels, idx_test)
    print(f'Test set results: loss {loss_test:.4f} accuracy {acc_test:.4f}')
    return history + [loss_test, acc_test], gcn


if __name__ == '__main__':
    main()
