"""Chapter 18 of Raschka, Liu and Mirjalili's *Machine Learning with PyTorch and Scikit-Learn*
(rasbt/machine-learning-book, ``ch18/ch18_part1.py`` and ``ch18_part2.py``, MIT licence), ported to
minigrad_ckpt by a mechanical rename.

    python examples/ported/graph_nets_mlbook.py

Part 1 writes a graph convolution by hand (``BasicGraphConvolutionLayer``: ``A X W2 + X W1 + b``), batches
graphs of different sizes into one block-diagonal adjacency with a ``collate_fn`` over dict samples, and
sum-pools each graph through a 0/1 batch matrix; a graph alone gives what it gives in a batch.  Part 2
trains the book's QM9 regressor (``NNConv`` edge-conditioned convolutions, ``global_add_pool``, Adam,
``mse_loss`` on the polarizability column); here ``NNConv`` and ``global_add_pool`` are written out (the
book imports them from torch_geometric): a per-edge weight matrix made by a small net from the edge
features, messages gathered by source node and summed into the target nodes with ``index_add_``, and the
graph sums by ``scatter_add_``.  Made small: four graphs of the book's colours (networkx's adjacency
written out), 12 random molecules (QM9 has 130831), 3 epochs; ``--double`` runs in float64.  The lines
that differ from the book's text are listed in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.nn.parameter import Parameter
from minigrad_ckpt.utils.data import DataLoader, Dataset

# ---------------------------------------------------------------- part 1: a graph convolution by hand

blue, orange, green = "#1f77b4", "#ff7f0e", "#2ca02c"
mapping_dict = {green: 0, blue: 1, orange: 2}
GRAPHS = [  # the book's G1..G4: node colours (nodes 1..n) and edges
    ([blue, orange, blue, green], [(1, 2), (2, 3), (1, 3), (3, 4)]),
    ([green, green, orange, orange, blue], [(2, 3), (3, 4), (3, 1), (5, 1)]),
    ([orange, orange, green, green, blue, orange], [(2, 3), (3, 4), (3, 1), (5, 1), (2, 5), (6, 1)]),
    ([blue, blue, green], [(1, 2), (2, 3)]),
]


def adjacency_matrix(colors, edges):
    """``np.asarray(nx.adjacency_matrix(G).todense())`` of an undirected graph."""
    A = np.zeros((len(colors), len(colors)), dtype=np.int64)
    for a, b in edges:
        A[a - 1, b - 1] = A[b - 1, a - 1] = 1
    return A


def build_graph_color_label_representation(colors, mapping_dict):
    one_hot_idxs = np.array([mapping_dict[v] for v in colors])
    one_hot_encoding = np.zeros((one_hot_idxs.size, len(mapping_dict)))
    one_hot_encoding[np.arange(one_hot_idxs.size), one_hot_idxs] = 1
    return one_hot_encoding


class BasicGraphConvolutionLayer(mg.nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.W2 = Parameter(mg.rand((in_channels, out_channels), dtype=mg.float32))
        self.W1 = Parameter(mg.rand((in_channels, out_channels), dtype=mg.float32))
        self.bias = Parameter(mg.zeros(out_channels, dtype=mg.float32))

    def forward(self, X, A):
        potential_msgs = mg.mm(X, self.W2)
        propagated_msgs = mg.mm(A, potential_msgs)
        root_update = mg.mm(X, self.W1)
        output = propagated_msgs + root_update + self.bias
        return output


def global_sum_pool(X, batch_mat):
    if batch_mat is None or batch_mat.dim() == 1:
        return mg.sum(X, dim=0).unsqueeze(0)
    else:
        return mg.mm(batch_mat, X)


class NodeNetwork(mg.nn.Module):
    def __init__(self, input_features):
        super().__init__()
        self.conv_1 = BasicGraphConvolutionLayer(input_features, 32)
        self.conv_2 = BasicGraphConvolutionLayer(32, 32)
        self.fc_1 = mg.nn.Linear(32, 16)
        self.out_layer = mg.nn.Linear(16, 2)

    def forward(self, X, A, batch_mat):
        x = self.conv_1(X, A).clamp(0)
        x = self.conv_2(x, A).clamp(0)
        output = global_sum_pool(x, batch_mat)
        output = self.fc_1(output)
        output = self.out_layer(output)
        return F.softmax(output, dim=1)


def get_batch_tensor(graph_sizes):
    starts = [sum(graph_sizes[:idx]) for idx in range(len(graph_sizes))]
    stops = [starts[idx] + graph_sizes[idx] for idx in range(len(graph_sizes))]
    tot_len = sum(graph_sizes)
    batch_size = len(graph_sizes)
    batch_mat = mg.zeros([batch_size, tot_len]).float()
    for idx, starts_and_stops in enumerate(zip(starts, stops)):
        start = starts_and_stops[0]
        stop = starts_and_stops[1]
        batch_mat[idx, start:stop] = 1
    return batch_mat


def collate_graphs(batch):
    adj_mats = [graph['A'] for graph in batch]
    sizes = [A.size(0) for A in adj_mats]
    tot_size = sum(sizes)
    batch_mat = get_batch_tensor(sizes)
    feat_mats = mg.cat([graph['X'] for graph in batch], dim=0)
    labels = mg.cat([graph['y'] for graph in batch], dim=0)
    batch_adj = mg.zeros([tot_size, tot_size], dtype=mg.float32)
    accum = 0
    for adj in adj_mats:
        g_size = adj.shape[0]
        batch_adj[accum:accum + g_size, accum:accum + g_size] = adj
        accum = accum + g_size
    repr_and_label = {
        'A': batch_adj,
        'X': feat_mats,
        'y': labels,
        'batch': batch_mat}
    return repr_and_label


def get_graph_dict(G, mapping_dict):
    A = mg.from_numpy(adjacency_matrix(*G)).float()
    X = mg.from_numpy(build_graph_color_label_representation(G[0], mapping_dict)).float()
    y = mg.tensor([[1, 0]]).float()
    return {'A': A, 'X': X, 'y': y, 'batch': None}


class ExampleDataset(Dataset):
    def __init__(self, graph_list):
        self.graphs = graph_list

    def __len__(self):
        return len(self.graphs)

    def __getitem__(self, idx):
        mol_rep = self.graphs[idx]
        return mol_rep


def part1(init, dtype):
    graph_list = [get_graph_dict(graph, mapping_dict) for graph in GRAPHS]
    dset = ExampleDataset(graph_list)
    loader = DataLoader(dset, batch_size=2, shuffle=False, collate_fn=collate_graphs)
    mg.manual_seed(123)
    node_features = 3
    net = NodeNetwork(node_features).to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init("node_network", net)
    batch_results = []
    for b in loader:
        batch_results.append(net(b['X'].to(dtype), b['A'].to(dtype), b['batch'].to(dtype)).detach())
    G1_rep = dset[1]
    G1_single = net(G1_rep['X'].to(dtype), G1_rep['A'].to(dtype), G1_rep['batch']).detach()
    G1_batch = batch_results[0][1]
    same = mg.all(mg.isclose(G1_single, G1_batch))
    print(same)
    return [v for r in batch_results for v in r.flatten().tolist()] + [float(same)], net


# ---------------------------------------------------------------- part 2: NNConv on molecules


class NNConv(nn.Module):
    """torch_geometric's ``NNConv(in_channels, out_channels, nn)`` with its defaults (``aggr='add'``,
    ``root_weight=True``, ``bias=True``): ``x_i' = W x_i + b + sum over edges j->i of x_j @ nn(e_ji)``."""

    def __init__(self, in_channels, out_channels, nn):
        super().__init__()
        self.in_channels, self.out_channels, self.nn = in_channels, out_channels, nn
        self.lin = mg.nn.Linear(in_channels, out_channels, bias=False)
        self.bias = Parameter(mg.zeros(out_channels))

    def forward(self, x, edge_index, edge_attr):
        src, dst = edge_index
        weight = self.nn(edge_attr).view(-1, self.in_channels, self.out_channels)
        msgs = mg.matmul(x[src].unsqueeze(1), weight).squeeze(1)
        out = mg.zeros(x.size(0), self.out_channels, dtype=x.dtype).index_add_(0, dst, msgs)
        return out + self.lin(x) + self.bias


def global_add_pool(x, batch):
    """torch_geometric's ``global_add_pool``: the sum of each graph's node rows."""
    size = int(batch.max().item()) + 1
    return mg.zeros(size, x.size(-1), dtype=x.dtype).scatter_add_(0, batch.unsqueeze(-1).expand_as(x), x)


class ExampleNet(mg.nn.Module):
    def __init__(self, num_node_features, num_edge_features):
        super().__init__()
        conv1_net = nn.Sequential(nn.Linear(num_edge_features, 32),
                                  nn.ReLU(),
                                  nn.Linear(32, num_node_features * 32))
        conv2_net = nn.Sequential(nn.Linear(num_edge_features, 32),
                                  nn.ReLU(),
                                  nn.Linear(32, 32 * 16))
        self.conv1 = NNConv(num_node_features, 32, conv1_net)
        self.conv2 = NNConv(32, 16, conv2_net)
        self.fc_1 = nn.Linear(16, 32)
        self.out = nn.Linear(32, 1)

    def forward(self, data):
        batch, x, edge_index, edge_attr = data.batch, data.x, data.edge_index, data.edge_attr
        # First graph conv layer
        x = F.relu(self.conv1(x, edge_index, edge_attr))
        # Second graph conv layer
        x = F.relu(self.conv2(x, edge_index, edge_attr))
        x = global_add_pool(x, batch)
        x = F.relu(self.fc_1(x))
        output = self.out(x)
        return output


class Batch:
    """What torch_geometric's ``DataLoader`` hands out: the graphs' node features ``x``, ``edge_index``
    (offset per graph), ``edge_attr``, targets ``y``, the node-to-graph ``batch`` vector, ``num_graphs``."""

    def __init__(self, molecules, dtype):
        xs, edges, attrs, ys, batch, offset = [], [], [], [], [], 0
        for i, (x, edge_index, edge_attr, y) in enumerate(molecules):
            xs.append(x), edges.append(edge_index + offset), attrs.append(edge_attr), ys.append(y)
            batch.append(np.full(len(x), i))
            offset += len(x)
        self.x = mg.from_numpy(np.concatenate(xs)).to(dtype)
        self.edge_index = mg.from_numpy(np.concatenate(edges, 1))
        self.edge_attr = mg.from_numpy(np.concatenate(attrs)).to(dtype)
        self.y = mg.from_numpy(np.concatenate(ys)).to(dtype)
        self.batch = mg.from_numpy(np.concatenate(batch))
        self.num_graphs = len(molecules)

    def to(self, device):
        for name in ("x", "edge_index", "edge_attr", "y", "batch"):
            setattr(self, name, getattr(self, name).to(device))
        return self


def molecules(n, seed=8):
    """``n`` random molecules as QM9 has them: 11 node features, 4 edge features (both directions of
    a bond), 19 targets."""
    rng = np.random.RandomState(seed)
    out = []
    for _ in range(n):
        atoms = rng.randint(3, 7)
        bonds = [(i, j) for i in range(atoms) for j in range(i + 1, atoms) if rng.rand() < 0.6] or [(0, 1)]
        edge_index = np.array(bonds + [(j, i) for i, j in bonds], dtype=np.int64).T
        bond_attr = rng.randn(len(bonds), 4)
        out.append((rng.randn(atoms, 11), edge_index, np.concatenate([bond_attr, bond_attr]),
                    rng.randn(1, 19)))
    return out


def part2(init, dtype, epochs):
    mols = molecules(12)
    trainloader = [Batch(mols[i:i + 4], dtype) for i in range(0, 8, 4)]
    validloader = [Batch(mols[8:], dtype)]
    qm9_node_feats, qm9_edge_feats = 11, 4
    net = ExampleNet(qm9_node_feats, qm9_edge_feats).to(dtype)
    if init is not None:
        init("example_net", net)
    optimizer = mg.optim.Adam(net.parameters(), lr=0.01)
    target_idx = 1  # index position of the polarizability label
    device = mg.device("cuda:0" if mg.cuda.is_available() else "cpu")
    net.to(device)
    history = []
    for total_epochs in range(epochs):
        epoch_loss = 0
        total_graphs = 0
        net.train()
        for batch in trainloader:
            batch.to(device)
            optimizer.zero_grad()
            output = net(batch)
            loss = F.mse_loss(output, batch.y[:, target_idx].unsqueeze(1))
            loss.backward()
            epoch_loss += loss.item()
            total_graphs += batch.num_graphs
            optimizer.step()
        train_avg_loss = epoch_loss / total_graphs
        val_loss = 0
        total_graphs = 0
        net.eval()
        for batch in validloader:
            batch.to(device)
            output = net(batch)
            loss = F.mse_loss(output, batch.y[:, target_idx].unsqueeze(1))
            val_loss += loss.item()
            total_graphs += batch.num_graphs
        val_avg_loss = val_loss / total_graphs
        print(f"Epochs: {total_epochs} | epoch avg. loss: {train_avg_loss:.2f} | "
              f"validation avg. loss: {val_avg_loss:.2f}")
        history += [train_avg_loss, val_avg_loss]
    net.eval()
    predictions = []
    for batch in validloader:
        output = net(batch.to(device))
        predictions.append(output.detach().cpu().numpy())
    return history + np.concatenate(predictions).ravel().tolist(), net


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="ch18: graph neural networks")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    dtype = mg.float64 if args.double else mg.float32
    history1, node_net = part1(init, dtype)
    history2, example_net = part2(init, dtype, args.epochs)
    return history1 + history2, (node_net, example_net)


if __name__ == "__main__":
    main()
