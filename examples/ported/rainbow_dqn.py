"""RL-Adventure's "Rainbow" notebook (higgsfield/RL-Adventure ``7.rainbow dqn.ipynb``, its CartPole part, with
``common/layers.py``'s ``NoisyLinear`` and ``common/replay_buffer.py``'s ``ReplayBuffer``), ported to
minigrad_ckpt by a mechanical rename.

    python examples/ported/rainbow_dqn.py

A distributional (C51) dueling network of noisy layers: ``NoisyLinear`` keeps its factorised noise in
buffers (``register_buffer``, refilled by ``copy_`` of ``randn`` noise through ``ger``) and builds its
weights from ``nn.Parameter(mg.FloatTensor(out, in))`` filled by ``.data.uniform_``/``.data.fill_``; the
forward pass takes ``F.softmax`` without a dim (PyTorch's implicit dim, with its warning) over 51 atoms;
the target distribution is projected onto the support with ``index_add_`` through ``view(-1)`` of a
zeros tensor, the chosen action's distribution is clamped through ``.data.clamp_`` before its ``log``,
and the target network is a ``load_state_dict`` copy, buffers included.  The notebook's spellings are
kept: ``autograd.Variable(..., volatile=True)``, ``.data.cpu()``, ``.numpy()[0]``, ``USE_CUDA``.  Made
small: gym's CartPole -> ``Cart``, a deterministic NumPy environment written here, 20 frames (15000),
batches of 8 (32).  The lines that differ are listed in ``README.md``.
"""

import argparse
import math
import random

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.autograd as autograd
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.optim as optim

USE_CUDA = mg.cuda.is_available()
Variable = lambda *args, **kwargs: autograd.Variable(*args, **kwargs).cuda() if USE_CUDA else autograd.Variable(*args, **kwargs)  # noqa: E501, E731


class Discrete:
    """gym's ``spaces.Discrete(n)``: ``n``."""

    def __init__(self, n):
        self.n = n


class Box:
    """gym's ``spaces.Box``: its ``shape``."""

    def __init__(self, shape):
        self.shape = shape


class Cart:
    """CartPole's shapes (four float64 numbers, two actions, reward 1 a step) with a deterministic
    NumPy dynamics: a push of +-1 moves the cart and tilts the pole the other way; the episode ends when
    the tilt passes 0.2 or after 12 steps.  gym's old API: ``reset()`` is the observation, ``step`` a
    4-tuple."""

    def __init__(self):
        self.observation_space = Box((4,))
        self.action_space = Discrete(2)
        self.episodes = 0

    def reset(self):
        self.episodes += 1
        self.t = 0
        self.s = np.array([0.01 * (self.episodes % 5), -0.02, 0.03 * (self.episodes % 3 - 1), 0.0])
        return self.s.copy()

    def step(self, action):
        push = 1.0 if int(action) == 1 else -1.0
        x, v, tilt, spin = self.s
        self.s = np.array([x + 0.1 * v, v + 0.1 * push, tilt + 0.1 * spin, spin - 0.15 * push + 0.2 * tilt])
        self.t += 1
        return self.s.copy(), 1.0, bool(abs(self.s[2]) > 0.2 or self.t >= 12), {}


class NoisyLinear(nn.Module):
    def __init__(self, in_features, out_features, use_cuda, std_init=0.4):
        super(NoisyLinear, self).__init__()

        self.use_cuda     = use_cuda
        self.in_features  = in_features
        self.out_features = out_features
        self.std_init     = std_init

        self.weight_mu    = nn.Parameter(mg.FloatTensor(out_features, in_features))
        self.weight_sigma = nn.Parameter(mg.FloatTensor(out_features, in_features))
        self.register_buffer('weight_epsilon', mg.FloatTensor(out_features, in_features))

        self.bias_mu    = nn.Parameter(mg.FloatTensor(out_features))
        self.bias_sigma = nn.Parameter(mg.FloatTensor(out_features))
        self.register_buffer('bias_epsilon', mg.FloatTensor(out_features))

        self.reset_parameters()
        self.reset_noise()

    def forward(self, x):
        if self.use_cuda:
            weight_epsilon = self.weight_epsilon.cuda()
            bias_epsilon   = self.bias_epsilon.cuda()
        else:
            weight_epsilon = self.weight_epsilon
            bias_epsilon   = self.bias_epsilon

        if self.training:
            weight = self.weight_mu + self.weight_sigma.mul(autograd.Variable(weight_epsilon))
            bias   = self.bias_mu   + self.bias_sigma.mul(autograd.Variable(bias_epsilon))
        else:
            weight = self.weight_mu
            bias   = self.bias_mu

        return F.linear(x, weight, bias)

    def reset_parameters(self):
        mu_range = 1 / math.sqrt(self.weight_mu.size(1))

        self.weight_mu.data.uniform_(-mu_range, mu_range)
        self.weight_sigma.data.fill_(self.std_init / math.sqrt(self.weight_sigma.size(1)))

        self.bias_mu.data.uniform_(-mu_range, mu_range)
        self.bias_sigma.data.fill_(self.std_init / math.sqrt(self.bias_sigma.size(0)))

    def reset_noise(self):
        epsilon_in  = self._scale_noise(self.in_features)
        epsilon_out = self._scale_noise(self.out_features)

        self.weight_epsilon.copy_(epsilon_out.ger(epsilon_in))
        self.bias_epsilon.copy_(self._scale_noise(self.out_features))

    def _scale_noise(self, size):
        x = mg.randn(size)
        x = x.sign().mul(x.abs().sqrt())
        return x


class ReplayBuffer(object):
    def __init__(self, size):
        self._storage = []
        self._maxsize = size
        self._next_idx = 0

    def __len__(self):
        return len(self._storage)

    def push(self, state, action, reward, next_state, done):
        data = (state, action, reward, next_state, done)

        if self._next_idx >= len(self._storage):
            self._storage.append(data)
        else:
            self._storage[self._next_idx] = data
        self._next_idx = (self._next_idx + 1) % self._maxsize

    def _encode_sample(self, idxes):
        obses_t, actions, rewards, obses_tp1, dones = [], [], [], [], []
        for i in idxes:
            data = self._storage[i]
            obs_t, action, reward, obs_tp1, done = data
            obses_t.append(np.asarray(obs_t))
            actions.append(np.asarray(action))
            rewards.append(reward)
            obses_tp1.append(np.asarray(obs_tp1))
            dones.append(done)
        return np.array(obses_t), np.array(actions), np.array(rewards), np.array(obses_tp1), np.array(dones)

    def sample(self, batch_size):
        idxes = [random.randint(0, len(self._storage) - 1) for _ in range(batch_size)]
        return self._encode_sample(idxes)


class RainbowDQN(nn.Module):
    def __init__(self, num_inputs, num_actions, num_atoms, Vmin, Vmax):
        super(RainbowDQN, self).__init__()

        self.num_inputs   = num_inputs
        self.num_actions  = num_actions
        self.num_atoms    = num_atoms
        self.Vmin         = Vmin
        self.Vmax         = Vmax

        self.linear1 = nn.Linear(num_inputs, 32)
        self.linear2 = nn.Linear(32, 64)

        self.noisy_value1 = NoisyLinear(64, 64, use_cuda=USE_CUDA)
        self.noisy_value2 = NoisyLinear(64, self.num_atoms, use_cuda=USE_CUDA)

        self.noisy_advantage1 = NoisyLinear(64, 64, use_cuda=USE_CUDA)
        self.noisy_advantage2 = NoisyLinear(64, self.num_atoms * self.num_actions, use_cuda=USE_CUDA)

    def forward(self, x):
        batch_size = x.size(0)

        x = F.relu(self.linear1(x))
        x = F.relu(self.linear2(x))

        value = F.relu(self.noisy_value1(x))
        value = self.noisy_value2(value)

        advantage = F.relu(self.noisy_advantage1(x))
        advantage = self.noisy_advantage2(advantage)

        value     = value.view(batch_size, 1, self.num_atoms)
        advantage = advantage.view(batch_size, self.num_actions, self.num_atoms)

        x = value + advantage - advantage.mean(1, keepdim=True)
        x = F.softmax(x.view(-1, self.num_atoms)).view(-1, self.num_actions, self.num_atoms)

        return x

    def reset_noise(self):
        self.noisy_value1.reset_noise()
        self.noisy_value2.reset_noise()
        self.noisy_advantage1.reset_noise()
        self.noisy_advantage2.reset_noise()

    def act(self, state):
        state = Variable(mg.FloatTensor(state).unsqueeze(0), volatile=True)
        dist = self.forward(state).data.cpu()
        dist = dist * mg.linspace(self.Vmin, self.Vmax, self.num_atoms)
        action = dist.sum(2).max(1)[1].numpy()[0]
        return action


def update_target(current_model, target_model):
    target_model.load_state_dict(current_model.state_dict())


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='Rainbow DQN (RL-Adventure)')
    parser.add_argument('--frames', type=int, default=20)
    parser.add_argument('--batch-size', type=int, default=8)
    args = parser.parse_args(argv)
    random.seed(0)
    mg.manual_seed(0)

    env = Cart()
    num_atoms = 51
    Vmin = -10
    Vmax = 10

    current_model = RainbowDQN(env.observation_space.shape[0], env.action_space.n, num_atoms, Vmin, Vmax)
    target_model  = RainbowDQN(env.observation_space.shape[0], env.action_space.n, num_atoms, Vmin, Vmax)
    if init is not None:  # a test hook: records or loads the starting weights
        init('current', current_model)
        init('target', target_model)

    if USE_CUDA:
        current_model = current_model.cuda()
        target_model  = target_model.cuda()

    optimizer = optim.Adam(current_model.parameters(), 0.001)

    replay_buffer = ReplayBuffer(10000)

    update_target(current_model, target_model)

    def projection_distribution(next_state, rewards, dones):
        batch_size  = next_state.size(0)

        delta_z = float(Vmax - Vmin) / (num_atoms - 1)
        support = mg.linspace(Vmin, Vmax, num_atoms)

        next_dist   = target_model(next_state).data.cpu() * support
        next_action = next_dist.sum(2).max(1)[1]
        next_action = next_action.unsqueeze(1).unsqueeze(1).expand(next_dist.size(0), 1, next_dist.size(2))
        next_dist   = next_dist.gather(1, next_action).squeeze(1)

        rewards = rewards.unsqueeze(1).expand_as(next_dist)
        dones   = dones.unsqueeze(1).expand_as(next_dist)
        support = support.unsqueeze(0).expand_as(next_dist)

        Tz = rewards + (1 - dones) * 0.99 * support
        Tz = Tz.clamp(min=Vmin, max=Vmax)
        b  = (Tz - Vmin) / delta_z
        l  = b.floor().long()
        u  = b.ceil().long()

        offset = mg.linspace(0, (batch_size - 1) * num_atoms, batch_size).long()\
                        .unsqueeze(1).expand(batch_size, num_atoms)

        proj_dist = mg.zeros(next_dist.size())
        proj_dist.view(-1).index_add_(0, (l + offset).view(-1), (next_dist * (u.float() - b)).view(-1))
        proj_dist.view(-1).index_add_(0, (u + offset).view(-1), (next_dist * (b - l.float())).view(-1))

        return proj_dist

    def compute_td_loss(batch_size):
        state, action, reward, next_state, done = replay_buffer.sample(batch_size)

        state      = Variable(mg.FloatTensor(np.float32(state)))
        next_state = Variable(mg.FloatTensor(np.float32(next_state)), volatile=True)
        action     = Variable(mg.LongTensor(action))
        reward     = mg.FloatTensor(reward)
        done       = mg.FloatTensor(np.float32(done))

        proj_dist = projection_distribution(next_state, reward, done)

        dist = current_model(state)
        action = action.unsqueeze(1).unsqueeze(1).expand(batch_size, 1, num_atoms)
        dist = dist.gather(1, action).squeeze(1)
        dist.data.clamp_(0.01, 0.99)
        loss = -(Variable(proj_dist) * dist.log()).sum(1)
        loss  = loss.mean()

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        current_model.reset_noise()
        target_model.reset_noise()

        return loss

    num_frames = args.frames
    batch_size = args.batch_size

    losses = []
    all_rewards = []
    episode_reward = 0

    state = env.reset()
    for frame_idx in range(1, num_frames + 1):
        action = current_model.act(state)

        next_state, reward, done, _ = env.step(action)
        replay_buffer.push(state, action, reward, next_state, done)

        state = next_state
        episode_reward += reward

        if done:
            state = env.reset()
            all_rewards.append(episode_reward)
            episode_reward = 0

        if len(replay_buffer) > batch_size:
            loss = compute_td_loss(batch_size)
            losses.append(loss.item())
            print(frame_idx, losses[-1])

        if frame_idx % 10 == 0:
            update_target(current_model, target_model)

    return all_rewards + losses, current_model


if __name__ == '__main__':
    main()
