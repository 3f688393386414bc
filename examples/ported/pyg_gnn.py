"""PyTorch Geometric's pure-PyTorch layers (pyg-team/pytorch_geometric: ``utils/_scatter.py``,
``utils/_segment.py``, ``utils/_softmax.py``, ``utils/loop.py``, ``nn/conv/gcn_conv.py``, ``gat_conv.py``,
``gatv2_conv.py``, ``sage_conv.py``, ``gin_conv.py``, ``graph_conv.py``, ``transformer_conv.py``,
``nn/pool/topk_pool.py``, ``nn/models/graph_unet.py``), re-written as its code does without torch_scatter
and ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/pyg_gnn.py --double

``MessagePassing.propagate`` gathers ``x_j``/``x_i`` with ``index_select``, calls ``message`` and
aggregates with ``scatter`` (``scatter_add_``/``scatter_reduce_(include_self=False)`` on ``new_zeros``, or
``index_add_``); ``softmax`` over each target's edges by a scatter max, or by ``segment_reduce`` over a
CSR pointer (PyG's ``torch._segment_reduce`` path, here ``segment_reduce``); GCN normalization with
``add_remaining_self_loops``; ``to_dense_batch``/``to_dense_adj``; ``TopKPooling``'s stable sorts and
``filter_adj``; a GraphUNet with its augmented adjacency squared densely (the original calls
torch_sparse's ``spspmm``).  ``main`` trains a GCN and a GAT on node labels and a GIN/Transformer/SAGE
graph classifier with top-k pooling and global pools on mini-batches, Adam throughout (dropout 0: two
engines' masks differ); the graphs are made here instead of downloading Cora or MUTAG.
"""

import argparse
import inspect
import math

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import nn
import minigrad_ckpt.nn.functional as F

Parameter = nn.Parameter


def maybe_num_nodes(index, n=None):
    return n if n is not None else (int(index.max()) + 1 if index.numel() > 0 else 0)


def broadcast(src, ref, dim):
    dim = ref.dim() + dim if dim < 0 else dim
    size = ((1,) * dim) + (-1,) + ((1,) * (ref.dim() - dim - 1))
    return src.view(size).expand_as(ref)


def scatter(src, index, dim=0, dim_size=None, reduce='sum'):
    dim = src.dim() + dim if dim < 0 else dim
    if dim_size is None:
        dim_size = int(index.max()) + 1 if index.numel() > 0 else 0
    size = src.size()[:dim] + (dim_size,) + src.size()[dim + 1:]
    if reduce in ('sum', 'add'):
        index = broadcast(index, src, dim)
        return src.new_zeros(size).scatter_add_(dim, index, src)
    if reduce == 'mean':
        count = src.new_zeros(dim_size)
        count.scatter_add_(0, index, src.new_ones(src.size(dim)))
        count = count.clamp(min=1)
        index = broadcast(index, src, dim)
        out = src.new_zeros(size).scatter_add_(dim, index, src)
        return out / broadcast(count, out, dim)
    if reduce in ('min', 'max', 'amin', 'amax'):
        index = broadcast(index, src, dim)
        return src.new_zeros(size).scatter_reduce_(dim, index, src, reduce=f'a{reduce[-3:]}',
                                                   include_self=False)
    if reduce == 'mul':
        index = broadcast(index, src, dim)
        return src.new_ones(size).scatter_reduce_(dim, index, src, reduce='prod', include_self=True)
    raise ValueError(reduce)


def index_add_scatter(src, index, dim_size):
    # the other spelling (MessagePassing's "sum" aggregation with index_add_)
    return src.new_zeros((dim_size,) + src.size()[1:]).index_add_(0, index, src)


def softmax(src, index, num_nodes=None, dim=0):
    N = maybe_num_nodes(index, num_nodes)
    src_max = scatter(src.detach(), index, dim, dim_size=N, reduce='max')
    out = src - src_max.index_select(dim, index)
    out = out.exp()
    out_sum = scatter(out, index, dim, dim_size=N, reduce='sum') + 1e-16
    out_sum = out_sum.index_select(dim, index)
    return out / out_sum


def remove_self_loops(edge_index, edge_attr=None):
    mask = edge_index[0] != edge_index[1]
    edge_index = edge_index[:, mask]
    return edge_index, None if edge_attr is None else edge_attr[mask]


def add_self_loops(edge_index, edge_attr=None, fill_value=None, num_nodes=None):
    N = maybe_num_nodes(edge_index, num_nodes)
    loop_index = mg.arange(0, N, dtype=mg.long, device=edge_index.device)
    loop_index = loop_index.unsqueeze(0).repeat(2, 1)
    if edge_attr is not None:
        if fill_value is None:
            loop_attr = edge_attr.new_full((N,) + edge_attr.size()[1:], 1.)
        elif fill_value == 'mean':
            loop_attr = scatter(edge_attr, edge_index[1], 0, N, 'mean')
        else:
            loop_attr = edge_attr.new_full((N,) + edge_attr.size()[1:], fill_value)
        edge_attr = mg.cat([edge_attr, loop_attr], dim=0)
    edge_index = mg.cat([edge_index, loop_index], dim=1)
    return edge_index, edge_attr


def add_remaining_self_loops(edge_index, edge_attr=None, fill_value=None, num_nodes=None):
    N = maybe_num_nodes(edge_index, num_nodes)
    mask = edge_index[0] != edge_index[1]
    loop_index = mg.arange(0, N, dtype=mg.long, device=edge_index.device)
    loop_index = loop_index.unsqueeze(0).repeat(2, 1)
    if edge_attr is not None:
        loop_attr = edge_attr.new_full((N,) + edge_attr.size()[1:], 1. if fill_value is None else fill_value)
        inv_mask = ~mask
        loop_attr[edge_index[0][inv_mask]] = edge_attr[inv_mask]
        edge_attr = mg.cat([edge_attr[mask], loop_attr], dim=0)
    edge_index = mg.cat([edge_index[:, mask], loop_index], dim=1)
    return edge_index, edge_attr


def degree(index, num_nodes=None, dtype=None):
    N = maybe_num_nodes(index, num_nodes)
    out = mg.zeros((N,), dtype=dtype, device=index.device)
    one = mg.ones((index.size(0),), dtype=out.dtype, device=out.device)
    return out.scatter_add_(0, index, one)


def cumsum(x, dim=0):
    size = x.size()[:dim] + (x.size(dim) + 1,) + x.size()[dim + 1:]
    out = x.new_empty(size)
    out.narrow(dim, 0, 1).zero_()
    mg.cumsum(x, dim=dim, out=out.narrow(dim, 1, x.size(dim)))
    return out


def to_dense_batch(x, batch, fill_value=0.0):
    batch_size = int(batch.max()) + 1
    num_nodes = scatter(batch.new_ones(x.size(0)), batch, dim=0, dim_size=batch_size, reduce='sum')
    cum_nodes = cumsum(num_nodes)
    max_num_nodes = int(num_nodes.max())
    tmp = mg.arange(batch.size(0), device=x.device) - cum_nodes[batch]
    idx = tmp + (batch * max_num_nodes)
    size = [batch_size * max_num_nodes] + list(x.size())[1:]
    out = mg.as_tensor(fill_value, device=x.device)
    out = out.to(x.dtype).repeat(size)
    out[idx] = x
    out = out.view([batch_size, max_num_nodes] + list(x.size())[1:])
    mask = mg.zeros(batch_size * max_num_nodes, dtype=mg.bool, device=x.device)
    mask[idx] = 1
    mask = mask.view(batch_size, max_num_nodes)
    return out, mask


def to_dense_adj(edge_index, batch=None, edge_attr=None, max_num_nodes=None):
    if batch is None:
        num_nodes = int(edge_index.max()) + 1 if edge_index.numel() > 0 else 0
        batch = edge_index.new_zeros(num_nodes)
    batch_size = int(batch.max()) + 1 if batch.numel() > 0 else 1
    one = batch.new_ones(batch.size(0))
    num_nodes = scatter(one, batch, dim=0, dim_size=batch_size, reduce='sum')
    cum_nodes = cumsum(num_nodes)
    idx0 = batch[edge_index[0]]
    idx1 = edge_index[0] - cum_nodes[batch][edge_index[0]]
    idx2 = edge_index[1] - cum_nodes[batch][edge_index[1]]
    if max_num_nodes is None:
        max_num_nodes = int(num_nodes.max())
    if edge_attr is None:
        edge_attr = mg.ones(idx0.numel(), device=edge_index.device)
    size = [batch_size, max_num_nodes, max_num_nodes]
    size += list(edge_attr.size())[1:]
    flattened_size = batch_size * max_num_nodes * max_num_nodes
    idx = idx0 * max_num_nodes * max_num_nodes + idx1 * max_num_nodes + idx2
    adj = scatter(edge_attr, idx, dim=0, dim_size=flattened_size, reduce='sum')
    return adj.view(size)


def dense_to_sparse(adj):
    edge_index = adj.nonzero().t()
    edge_attr = adj[edge_index[0], edge_index[1]]
    return edge_index, edge_attr


def gcn_norm(edge_index, edge_weight=None, num_nodes=None, improved=False, add_self_loops=True,
             dtype=None):
    fill_value = 2. if improved else 1.
    num_nodes = maybe_num_nodes(edge_index, num_nodes)
    if add_self_loops:
        edge_index, edge_weight = add_remaining_self_loops(edge_index, edge_weight, fill_value, num_nodes)
    if edge_weight is None:
        edge_weight = mg.ones((edge_index.size(1),), dtype=dtype, device=edge_index.device)
    row, col = edge_index[0], edge_index[1]
    deg = scatter(edge_weight, col, dim=0, dim_size=num_nodes, reduce='sum')
    deg_inv_sqrt = deg.pow_(-0.5)
    deg_inv_sqrt.masked_fill_(deg_inv_sqrt == float('inf'), 0)
    edge_weight = deg_inv_sqrt[row] * edge_weight * deg_inv_sqrt[col]
    return edge_index, edge_weight


class Linear(nn.Module):
    """torch_geometric.nn.dense.Linear: glorot weight, zero bias."""
    def __init__(self, in_channels, out_channels, bias=True):
        super().__init__()
        self.weight = Parameter(mg.empty(out_channels, in_channels))
        self.bias = Parameter(mg.empty(out_channels)) if bias else None
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.xavier_uniform_(self.weight)
        if self.bias is not None:
            nn.init.zeros_(self.bias)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def __repr__(self):
        return f'{self.__class__.__name__}({self.weight.size(1)}, {self.weight.size(0)}, bias={self.bias is not None})'


class MessagePassing(nn.Module):
    def __init__(self, aggr='add', node_dim=-2, aggr_spelling='scatter'):
        super().__init__()
        self.aggr = aggr
        self.node_dim = node_dim
        self.aggr_spelling = aggr_spelling
        self._msg_args = list(inspect.signature(self.message).parameters)

    def _lift(self, src, edge_index, j):
        return src.index_select(self.node_dim, edge_index[j])

    def propagate(self, edge_index, size=None, **kwargs):
        dim_size = None
        out = {}
        for arg in self._msg_args:
            if arg == 'size_i':
                out[arg] = None
            elif arg.endswith('_i') or arg.endswith('_j'):
                data = kwargs[arg[:-2]]
                j = 0 if arg.endswith('_j') else 1   # flow source_to_target
                if isinstance(data, (tuple, list)):
                    data = data[1 - j]
                out[arg] = self._lift(data, edge_index, j)
                if arg.endswith('_i') or dim_size is None:
                    pass
            elif arg == 'index':
                out[arg] = edge_index[1]
            elif arg == 'size_i':
                out[arg] = None
            else:
                out[arg] = kwargs.get(arg)
        x = kwargs.get('x')
        if isinstance(x, (tuple, list)):
            x = x[1]
        for v in kwargs.values():
            if hasattr(v, 'size') and v is not None and not isinstance(v, tuple):
                dim_size = v.size(self.node_dim) if dim_size is None and v.dim() >= 2 else dim_size
        if x is not None:
            dim_size = x.size(self.node_dim)
        if size is not None:
            dim_size = size
        if 'size_i' in out:
            out['size_i'] = dim_size
        msg = self.message(**out)
        return self.aggregate(msg, edge_index[1], dim_size)

    def aggregate(self, inputs, index, dim_size):
        if self.aggr_spelling == 'index_add' and self.aggr == 'add':
            return index_add_scatter(inputs, index, dim_size)
        return scatter(inputs, index, dim=self.node_dim, dim_size=dim_size, reduce=self.aggr)


class GCNConv(MessagePassing):
    def __init__(self, in_channels, out_channels, improved=False, add_self_loops=True, normalize=True,
                 bias=True, **kw):
        super().__init__(aggr='add', **kw)
        self.improved, self.add_self_loops, self.normalize = improved, add_self_loops, normalize
        self.lin = Linear(in_channels, out_channels, bias=False)
        self.bias = Parameter(mg.zeros(out_channels)) if bias else None

    def forward(self, x, edge_index, edge_weight=None):
        if self.normalize:
            edge_index, edge_weight = gcn_norm(edge_index, edge_weight, x.size(self.node_dim),
                                               self.improved, self.add_self_loops, dtype=x.dtype)
        x = self.lin(x)
        out = self.propagate(edge_index, x=x, edge_weight=edge_weight)
        if self.bias is not None:
            out = out + self.bias
        return out

    def message(self, x_j, edge_weight):
        return x_j if edge_weight is None else edge_weight.view(-1, 1) * x_j


class GATConv(MessagePassing):
    def __init__(self, in_channels, out_channels, heads=1, concat=True, negative_slope=0.2, dropout=0.0,
                 add_self_loops=True, edge_dim=None, fill_value='mean', bias=True):
        super().__init__(aggr='add', node_dim=0)
        self.heads, self.out_channels, self.concat = heads, out_channels, concat
        self.negative_slope, self.dropout, self.add_self_loops = negative_slope, dropout, add_self_loops
        self.fill_value = fill_value
        self.lin = Linear(in_channels, heads * out_channels, bias=False)
        self.att_src = Parameter(mg.empty(1, heads, out_channels))
        self.att_dst = Parameter(mg.empty(1, heads, out_channels))
        if edge_dim is not None:
            self.lin_edge = Linear(edge_dim, heads * out_channels, bias=False)
            self.att_edge = Parameter(mg.empty(1, heads, out_channels))
        else:
            self.lin_edge = None
            self.register_parameter('att_edge', None)
        self.bias = Parameter(mg.zeros(heads * out_channels if concat else out_channels)) if bias else None
        nn.init.xavier_uniform_(self.att_src)
        nn.init.xavier_uniform_(self.att_dst)
        if self.att_edge is not None:
            nn.init.xavier_uniform_(self.att_edge)

    def forward(self, x, edge_index, edge_attr=None, return_attention_weights=False):
        H, C = self.heads, self.out_channels
        x_src = x_dst = self.lin(x).view(-1, H, C)
        alpha_src = (x_src * self.att_src).sum(dim=-1)
        alpha_dst = (x_dst * self.att_dst).sum(dim=-1)
        if self.add_self_loops:
            num_nodes = x.size(0)
            edge_index, edge_attr = remove_self_loops(edge_index, edge_attr)
            edge_index, edge_attr = add_self_loops(edge_index, edge_attr, fill_value=self.fill_value,
                                                   num_nodes=num_nodes)
        alpha = self.edge_update(alpha_src[edge_index[0]], alpha_dst[edge_index[1]], edge_attr,
                                 edge_index[1], x.size(0))
        out = self.propagate(edge_index, x=x_src, alpha=alpha)
        out = out.view(-1, H * C) if self.concat else out.mean(dim=1)
        if self.bias is not None:
            out = out + self.bias
        if return_attention_weights:
            return out, (edge_index, alpha)
        return out

    def edge_update(self, alpha_j, alpha_i, edge_attr, index, size_i):
        alpha = alpha_j if alpha_i is None else alpha_j + alpha_i
        if edge_attr is not None and self.lin_edge is not None:
            if edge_attr.dim() == 1:
                edge_attr = edge_attr.view(-1, 1)
            edge_attr = self.lin_edge(edge_attr).view(-1, self.heads, self.out_channels)
            alpha = alpha + (edge_attr * self.att_edge).sum(dim=-1)
        alpha = F.leaky_relu(alpha, self.negative_slope)
        alpha = softmax(alpha, index, size_i)
        return F.dropout(alpha, p=self.dropout, training=self.training)

    def message(self, x_j, alpha):
        return alpha.unsqueeze(-1) * x_j


class GATv2Conv(MessagePassing):
    def __init__(self, in_channels, out_channels, heads=1, concat=True, negative_slope=0.2, dropout=0.0,
                 add_self_loops=True, edge_dim=None, fill_value='mean', bias=True, share_weights=False):
        super().__init__(aggr='add', node_dim=0)
        self.heads, self.out_channels, self.concat = heads, out_channels, concat
        self.negative_slope, self.dropout, self.add_self_loops = negative_slope, dropout, add_self_loops
        self.fill_value = fill_value
        self.lin_l = Linear(in_channels, heads * out_channels, bias=bias)
        self.lin_r = self.lin_l if share_weights else Linear(in_channels, heads * out_channels, bias=bias)
        self.att = Parameter(mg.empty(1, heads, out_channels))
        self.lin_edge = Linear(edge_dim, heads * out_channels, bias=False) if edge_dim is not None else None
        self.bias = Parameter(mg.zeros(heads * out_channels if concat else out_channels)) if bias else None
        nn.init.xavier_uniform_(self.att)

    def forward(self, x, edge_index, edge_attr=None):
        H, C = self.heads, self.out_channels
        x_l = self.lin_l(x).view(-1, H, C)
        x_r = self.lin_r(x).view(-1, H, C)
        if self.add_self_loops:
            edge_index, edge_attr = remove_self_loops(edge_index, edge_attr)
            edge_index, edge_attr = add_self_loops(edge_index, edge_attr, fill_value=self.fill_value,
                                                   num_nodes=x.size(0))
        alpha = self.edge_update(x_l[edge_index[0]], x_r[edge_index[1]], edge_attr, edge_index[1], x.size(0))
        out = self.propagate(edge_index, x=(x_l, x_r), alpha=alpha)
        out = out.view(-1, H * C) if self.concat else out.mean(dim=1)
        if self.bias is not None:
            out = out + self.bias
        return out

    def edge_update(self, x_j, x_i, edge_attr, index, size_i):
        x = x_i + x_j
        if edge_attr is not None:
            if edge_attr.dim() == 1:
                edge_attr = edge_attr.view(-1, 1)
            x = x + self.lin_edge(edge_attr).view(-1, self.heads, self.out_channels)
        x = F.leaky_relu(x, self.negative_slope)
        alpha = (x * self.att).sum(dim=-1)
        alpha = softmax(alpha, index, size_i)
        return F.dropout(alpha, p=self.dropout, training=self.training)

    def message(self, x_j, alpha):
        return x_j * alpha.unsqueeze(-1)


class SAGEConv(MessagePassing):
    def __init__(self, in_channels, out_channels, aggr='mean', normalize=False, root_weight=True, bias=True):
        super().__init__(aggr=aggr)
        self.normalize, self.root_weight = normalize, root_weight
        self.lin_l = Linear(in_channels, out_channels, bias=bias)
        if root_weight:
            self.lin_r = Linear(in_channels, out_channels, bias=False)

    def forward(self, x, edge_index):
        if not isinstance(x, (tuple, list)):
            x = (x, x)
        out = self.propagate(edge_index, x=x)
        out = self.lin_l(out)
        if self.root_weight and x[1] is not None:
            out = out + self.lin_r(x[1])
        if self.normalize:
            out = F.normalize(out, p=2., dim=-1)
        return out

    def message(self, x_j):
        return x_j


class GINConv(MessagePassing):
    def __init__(self, net, eps=0., train_eps=False):
        super().__init__(aggr='add')
        self.nn = net
        if train_eps:
            self.eps = Parameter(mg.tensor([eps]))
        else:
            self.register_buffer('eps', mg.tensor([eps]))

    def forward(self, x, edge_index):
        if not isinstance(x, (tuple, list)):
            x = (x, x)
        out = self.propagate(edge_index, x=x)
        out = out + (1 + self.eps) * x[1]
        return self.nn(out)

    def message(self, x_j):
        return x_j


class GINEConv(MessagePassing):
    def __init__(self, net, eps=0., train_eps=False, edge_dim=None):
        super().__init__(aggr='add')
        self.nn = net
        if train_eps:
            self.eps = Parameter(mg.tensor([eps]))
        else:
            self.register_buffer('eps', mg.tensor([eps]))
        self.lin = Linear(edge_dim, net[0].in_features) if edge_dim is not None else None

    def forward(self, x, edge_index, edge_attr):
        if not isinstance(x, (tuple, list)):
            x = (x, x)
        out = self.propagate(edge_index, x=x, edge_attr=edge_attr)
        out = out + (1 + self.eps) * x[1]
        return self.nn(out)

    def message(self, x_j, edge_attr):
        if self.lin is not None:
            edge_attr = self.lin(edge_attr)
        return (x_j + edge_attr).relu()


class GraphConv(MessagePassing):
    def __init__(self, in_channels, out_channels, aggr='add', bias=True):
        super().__init__(aggr=aggr)
        self.lin_rel = Linear(in_channels, out_channels, bias=bias)
        self.lin_root = Linear(in_channels, out_channels, bias=False)

    def forward(self, x, edge_index, edge_weight=None):
        if not isinstance(x, (tuple, list)):
            x = (x, x)
        out = self.propagate(edge_index, x=x, edge_weight=edge_weight)
        out = self.lin_rel(out)
        return out + self.lin_root(x[1])

    def message(self, x_j, edge_weight):
        return x_j if edge_weight is None else edge_weight.view(-1, 1) * x_j


class TransformerConv(MessagePassing):
    def __init__(self, in_channels, out_channels, heads=1, concat=True, beta=False, dropout=0.,
                 edge_dim=None, bias=True, root_weight=True):
        super().__init__(aggr='add', node_dim=0)
        self.heads, self.out_channels, self.concat = heads, out_channels, concat
        self.beta, self.dropout, self.root_weight = beta, dropout, root_weight
        self.lin_key = Linear(in_channels, heads * out_channels)
        self.lin_query = Linear(in_channels, heads * out_channels)
        self.lin_value = Linear(in_channels, heads * out_channels)
        self.lin_edge = Linear(edge_dim, heads * out_channels, bias=False) if edge_dim is not None else None
        if concat:
            self.lin_skip = Linear(in_channels, heads * out_channels, bias=bias)
            self.lin_beta = Linear(3 * heads * out_channels, 1, bias=False) if beta else None
        else:
            self.lin_skip = Linear(in_channels, out_channels, bias=bias)
            self.lin_beta = Linear(3 * out_channels, 1, bias=False) if beta else None

    def forward(self, x, edge_index, edge_attr=None):
        H, C = self.heads, self.out_channels
        query = self.lin_query(x).view(-1, H, C)
        key = self.lin_key(x).view(-1, H, C)
        value = self.lin_value(x).view(-1, H, C)
        out = self.propagate(edge_index, query=query, key=key, value=value, edge_attr=edge_attr,
                             size=x.size(0))
        out = out.view(-1, H * C) if self.concat else out.mean(dim=1)
        if self.root_weight:
            x_r = self.lin_skip(x)
            if self.lin_beta is not None:
                beta = self.lin_beta(mg.cat([out, x_r, out - x_r], dim=-1)).sigmoid()
                out = beta * x_r + (1 - beta) * out
            else:
                out = out + x_r
        return out

    def message(self, query_i, key_j, value_j, edge_attr, index, size_i):
        if self.lin_edge is not None:
            edge_attr = self.lin_edge(edge_attr).view(-1, self.heads, self.out_channels)
            key_j = key_j + edge_attr
        alpha = (query_i * key_j).sum(dim=-1) / math.sqrt(self.out_channels)
        alpha = softmax(alpha, index, size_i)
        alpha = F.dropout(alpha, p=self.dropout, training=self.training)
        out = value_j
        if edge_attr is not None:
            out = out + edge_attr
        return out * alpha.view(-1, self.heads, 1)


def global_add_pool(x, batch, size=None):
    return scatter(x, batch, dim=-2, dim_size=size, reduce='sum')


def global_mean_pool(x, batch, size=None):
    return scatter(x, batch, dim=-2, dim_size=size, reduce='mean')


def global_max_pool(x, batch, size=None):
    return scatter(x, batch, dim=-2, dim_size=size, reduce='max')


def topk(x, ratio, batch, min_score=None, tol=1e-7):
    if min_score is not None:
        scores_max = scatter(x, batch, reduce='max')[batch] - tol
        scores_min = scores_max.clamp(max=min_score)
        return (x > scores_min).nonzero().view(-1)
    num_nodes = scatter(batch.new_ones(x.size(0)), batch, reduce='sum')
    if ratio >= 1:
        k = num_nodes.new_full((num_nodes.size(0),), int(ratio))
        k = mg.min(k, num_nodes)
    else:
        k = (float(ratio) * num_nodes.to(x.dtype)).ceil().to(mg.long)
    x, x_perm = mg.sort(x.view(-1), descending=True)
    batch = batch[x_perm]
    batch, batch_perm = mg.sort(batch, descending=False, stable=True)
    arange = mg.arange(x.size(0), dtype=mg.long, device=x.device)
    ptr = cumsum(num_nodes)
    batched_arange = arange - ptr[batch]
    mask = batched_arange < k[batch]
    return x_perm[batch_perm[mask]]


def filter_adj(edge_index, edge_attr, perm, num_nodes):
    mask = perm.new_full((num_nodes,), -1)
    i = mg.arange(perm.size(0), dtype=mg.long, device=perm.device)
    mask[perm] = i
    row, col = edge_index[0], edge_index[1]
    row, col = mask[row], mask[col]
    mask = (row >= 0) & (col >= 0)
    row, col = row[mask], col[mask]
    if edge_attr is not None:
        edge_attr = edge_attr[mask]
    return mg.stack([row, col], dim=0), edge_attr


class TopKPooling(nn.Module):
    def __init__(self, in_channels, ratio=0.5, min_score=None, multiplier=1.):
        super().__init__()
        self.in_channels, self.ratio, self.min_score, self.multiplier = in_channels, ratio, min_score, multiplier
        self.weight = Parameter(mg.empty(1, in_channels))
        bound = 1.0 / math.sqrt(in_channels)
        nn.init.uniform_(self.weight, -bound, bound)

    def forward(self, x, edge_index, edge_attr=None, batch=None):
        if batch is None:
            batch = edge_index.new_zeros(x.size(0))
        score = (x * self.weight).sum(dim=-1)
        if self.min_score is None:
            score = mg.tanh(score / self.weight.norm(p=2, dim=-1))
        else:
            score = softmax(score, batch)
        perm = topk(score, self.ratio, batch, self.min_score)
        x = x[perm] * score[perm].view(-1, 1)
        x = self.multiplier * x if self.multiplier != 1 else x
        batch = batch[perm]
        edge_index, edge_attr = filter_adj(edge_index, edge_attr, perm, num_nodes=score.size(0))
        return x, edge_index, edge_attr, batch, perm, score[perm]


class GraphUNet(nn.Module):
    """torch_geometric.nn.models.GraphUNet with augment_adj done densely (A+I)^2 minus loops."""
    def __init__(self, in_channels, hidden_channels, out_channels, depth, pool_ratios=0.5, sum_res=True):
        super().__init__()
        self.depth, self.sum_res = depth, sum_res
        self.pool_ratios = [pool_ratios] * depth
        self.down_convs = nn.ModuleList([GCNConv(in_channels, hidden_channels, improved=True)])
        self.pools = nn.ModuleList()
        for i in range(depth):
            self.pools.append(TopKPooling(hidden_channels, self.pool_ratios[i]))
            self.down_convs.append(GCNConv(hidden_channels, hidden_channels, improved=True))
        in_ch = hidden_channels if sum_res else 2 * hidden_channels
        self.up_convs = nn.ModuleList()
        for i in range(depth - 1):
            self.up_convs.append(GCNConv(in_ch, hidden_channels, improved=True))
        self.up_convs.append(GCNConv(in_ch, out_channels, improved=True))

    def forward(self, x, edge_index, batch=None):
        if batch is None:
            batch = edge_index.new_zeros(x.size(0))
        edge_weight = x.new_ones(edge_index.size(1))
        x = self.down_convs[0](x, edge_index, edge_weight)
        x = F.relu(x)
        xs, edge_indices, edge_weights, perms = [x], [edge_index], [edge_weight], []
        for i in range(1, self.depth + 1):
            edge_index, edge_weight = self.augment_adj(edge_index, edge_weight, x.size(0))
            x, edge_index, edge_weight, batch, perm, _ = self.pools[i - 1](x, edge_index, edge_weight, batch)
            x = self.down_convs[i](x, edge_index, edge_weight)
            x = F.relu(x)
            if i < self.depth:
                xs += [x]
                edge_indices += [edge_index]
                edge_weights += [edge_weight]
            perms += [perm]
        for i in range(self.depth):
            j = self.depth - 1 - i
            res, edge_index, edge_weight, perm = xs[j], edge_indices[j], edge_weights[j], perms[j]
            up = mg.zeros_like(res)
            up[perm] = x
            x = res + up if self.sum_res else mg.cat((res, up), dim=-1)
            x = self.up_convs[i](x, edge_index, edge_weight)
            x = F.relu(x) if i < self.depth - 1 else x
        return x

    def augment_adj(self, edge_index, edge_weight, num_nodes):
        edge_index, edge_weight = remove_self_loops(edge_index, edge_weight)
        edge_index, edge_weight = add_self_loops(edge_index, edge_weight, num_nodes=num_nodes)
        adj = to_dense_adj(edge_index, edge_attr=edge_weight, max_num_nodes=num_nodes)[0]
        adj = adj @ adj
        edge_index, edge_weight = dense_to_sparse(adj.detach())
        edge_index, edge_weight = remove_self_loops(edge_index, edge_weight)
        return edge_index, edge_weight


def segment(src, ptr, reduce='sum'):
    """PyG's utils.segment without torch_scatter: torch._segment_reduce over a CSR pointer."""
    initial = None
    if reduce in ('min', 'max'):
        reduce, initial = f'a{reduce}', 0
    out = mg.segment_reduce(src, reduce, offsets=ptr, axis=ptr.dim() - 1, initial=initial)
    return out


def softmax_ptr(src, ptr, dim=0):
    count = ptr[1:] - ptr[:-1]
    src_max = segment(src.detach(), ptr, reduce='max')
    src_max = src_max.repeat_interleave(count, dim=dim, output_size=src.size(dim))
    out = (src - src_max).exp()
    out_sum = segment(out, ptr, reduce='sum') + 1e-16
    out_sum = out_sum.repeat_interleave(count, dim=dim, output_size=src.size(dim))
    return out / out_sum


def index2ptr(index, size):
    return mg.cat([index.new_zeros(1), mg.bincount(index, minlength=size).cumsum(0)])


class NodeNet(nn.Module):
    def __init__(self, kind, in_channels, classes):
        super().__init__()
        if kind == 'gcn':
            self.conv1, self.conv2 = GCNConv(in_channels, 16), GCNConv(16, classes)
        else:
            self.conv1 = GATConv(in_channels, 8, heads=4)
            self.conv2 = GATv2Conv(32, classes, heads=2, concat=False)

    def forward(self, x, edge_index):
        x = F.elu(self.conv1(x, edge_index))
        return self.conv2(x, edge_index)


class GraphNet(nn.Module):
    def __init__(self, in_channels, hidden, classes):
        super().__init__()
        self.gin = GINConv(nn.Sequential(nn.Linear(in_channels, hidden), nn.ReLU(), nn.Linear(hidden, hidden)),
                           train_eps=True)
        self.sage = SAGEConv(hidden, hidden, aggr='max')
        self.tconv = TransformerConv(hidden, hidden // 2, heads=2, beta=True)
        self.graph = GraphConv(hidden, hidden, aggr='mean')
        self.pool = TopKPooling(hidden, 0.6)
        self.score = nn.Linear(hidden, 1, bias=False)  # (a bias: gradient 0 under the softmax, moved by round-off)
        self.lin = nn.Linear(4 * hidden, classes)

    def forward(self, x, edge_index, batch, size):
        x = self.gin(x, edge_index).relu()
        x = self.sage(x, edge_index).relu()
        x = self.tconv(x, edge_index).relu()
        x = self.graph(x, edge_index, x.new_ones(edge_index.size(1))).relu()
        x, edge_index, _, batch, _, _ = self.pool(x, edge_index, None, batch)
        order = mg.sort(batch, stable=True)[1]  # PyG's batches are sorted: a CSR pointer of the graphs
        x, batch = x[order], batch[order]
        attn = softmax_ptr(self.score(x), index2ptr(batch, size))
        pooled = [global_add_pool(x, batch, size), global_mean_pool(x, batch, size),
                  global_max_pool(x, batch, size), segment(attn * x, index2ptr(batch, size))]
        return self.lin(mg.cat(pooled, dim=-1))


def node_graph(rng, n=30, features=8, classes=3):
    y = rng.integers(0, classes, n)
    x = rng.standard_normal((n, features)) + y[:, None] * 0.5
    src, dst = [], []
    for i in range(n - 1):  # the last node is isolated
        for j in rng.choice(n - 1, 3, replace=False):
            if y[i] == y[j] or rng.random() < 0.2:
                src += [i, j]
                dst += [j, i]
    src += [0, 1]  # a self loop and a repeated edge
    dst += [0, dst[0]]
    return x, np.array([src, dst]), y


def graph_batch(rng, graphs):
    xs, edges, batch, ys, offset = [], [], [], [], 0
    for b, label in enumerate(graphs):
        n = int(rng.integers(4, 8))
        s = np.arange(n) if label == 0 else np.zeros(n - 1, dtype=np.int64)
        d = (s + 1) % n if label == 0 else np.arange(1, n)
        edges.append(np.concatenate([np.stack([s, d]), np.stack([d, s])], 1) + offset)
        xs.append(rng.standard_normal((n, 4)) * 0.1 + 1)
        batch.append(np.full(n, b))
        ys.append(label)
        offset += n
    return np.concatenate(xs), np.concatenate(edges, 1), np.concatenate(batch), np.array(ys)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='PyG layers')
    parser.add_argument('--steps', type=int, default=3)
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    rng = np.random.default_rng(0)
    history, models = [], []
    x, edge_index, y = node_graph(rng)
    x, edge_index, y = mg.tensor(x, dtype=dtype), mg.from_numpy(edge_index), mg.from_numpy(y)
    train = mg.arange(x.size(0)) < 20
    for kind in ('gcn', 'gat'):
        model = NodeNet(kind, x.size(1), 3).to(dtype)
        if init is not None:  # a test hook: records or loads the starting weights
            init(kind, model)
        optimizer = mg.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
        for _ in range(args.steps):
            model.train()
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x, edge_index)[train], y[train])
            loss.backward()
            history.extend([loss.item()] + [p.grad.abs().sum().item() for p in model.parameters()])
            optimizer.step()
        model.eval()
        with mg.no_grad():
            history.extend(model(x, edge_index).sum(0).tolist())
        models.append(model)
    model = GraphNet(4, 16, 2).to(dtype)
    if init is not None:
        init('graph', model)
    optimizer = mg.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(args.steps):
        gx, ge, gb, gy = graph_batch(rng, [0, 1, 1, 0])
        optimizer.zero_grad()
        out = model(mg.tensor(gx, dtype=dtype), mg.from_numpy(ge), mg.from_numpy(gb), 4)
        loss = F.cross_entropy(out, mg.from_numpy(gy))
        loss.backward()
        history.extend([loss.item()] + [p.grad.abs().sum().item() for p in model.parameters()])
        optimizer.step()
    models.append(model)
    unet = GraphUNet(8, 6, 3, depth=2).to(dtype)
    if init is not None:
        init('unet', unet)
    out = unet(x, edge_index)
    out.pow(2).sum().backward()
    history.extend(out.sum(0).tolist() + [p.grad.abs().sum().item() for p in unet.parameters()])
    norm_index, norm_weight = gcn_norm(edge_index, None, x.size(0), dtype=dtype)
    adj = to_dense_adj(norm_index, edge_attr=norm_weight)
    dense, mask = to_dense_batch(x, mg.from_numpy(np.repeat(np.arange(3), 10)))
    history.extend([adj.sum().item(), dense.abs().sum().item(), mask.sum().item()])
    models.append(unet)
    return history, tuple(models)


if __name__ == '__main__':
    print(main(['--double'])[0][:4])
