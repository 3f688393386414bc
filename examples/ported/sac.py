"""seungeunrho/minimalRL ``sac.py`` (soft actor-critic), ported to minigrad_ckpt by a mechanical
rename.

    python examples/ported/sac.py --episodes 3

A policy ``Normal(mu, softplus(.))`` sampled with ``rsample`` (the reparameterized draw the policy
loss differentiates through) and squashed by ``tanh`` with its log-density correction; a learned
temperature ``log_alpha``, a bare 0-d tensor with ``requires_grad = True`` and its own ``Adam``;
twin Q networks and their targets (``torch.min(q1_q2, 1, keepdim=True)[0]``), targets computed under
``no_grad`` and soft-updated through ``.data.copy_``; a replay buffer sampled with Python's
``random``.  gym's ``Pendulum-v1`` is the same pendulum written here in NumPy, started from fixed
states; the networks are narrower (32 hidden units for 128, 16 for 64 and 32).  The lines that
differ are listed in ``README.md``.
"""

import argparse
import collections
import random

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.optim as optim
from minigrad_ckpt.distributions import Normal

#Hyperparameters
lr_pi           = 0.0005
lr_q            = 0.001
init_alpha      = 0.01
gamma           = 0.98
batch_size      = 8
buffer_limit    = 50000
tau             = 0.01 # for target network soft update
target_entropy  = -1.0 # for automated alpha update
lr_alpha        = 0.001  # for automated alpha update


class Pendulum:
    """gym's ``Pendulum-v1`` dynamics (g = 10, m = l = 1, dt = 0.05, |thdot| <= 8, |u| <= 2), its
    observation ``[cos th, sin th, thdot]`` (float32) and reward; episode ``k`` starts from a fixed
    angle and speed instead of a random one, and ends (``done``) after ``limit`` steps."""

    def __init__(self, limit=200):
        self.limit, self.episode = limit, 0

    def reset(self):
        self.episode += 1
        self.th, self.thdot, self.t = 2.5 * np.sin(1.3 * self.episode), 0.5 * np.cos(self.episode), 0
        return self._obs(), {}

    def _obs(self):
        return np.array([np.cos(self.th), np.sin(self.th), self.thdot], dtype=np.float32)

    def step(self, u):
        u = float(np.clip(u[0], -2.0, 2.0))
        angle = ((self.th + np.pi) % (2 * np.pi)) - np.pi
        reward = -(angle ** 2 + 0.1 * self.thdot ** 2 + 0.001 * u ** 2)
        self.thdot = float(np.clip(self.thdot + (3 * 10.0 / 2 * np.sin(self.th) + 3.0 * u) * 0.05, -8, 8))
        self.th = self.th + self.thdot * 0.05
        self.t += 1
        return self._obs(), float(reward), self.t >= self.limit, False, {}


class ReplayBuffer():
    def __init__(self):
        self.buffer = collections.deque(maxlen=buffer_limit)

    def put(self, transition):
        self.buffer.append(transition)

    def sample(self, n):
        mini_batch = random.sample(self.buffer, n)
        s_lst, a_lst, r_lst, s_prime_lst, done_mask_lst = [], [], [], [], []

        for transition in mini_batch:
            s, a, r, s_prime, done = transition
            s_lst.append(s)
            a_lst.append([a])
            r_lst.append([r])
            s_prime_lst.append(s_prime)
            done_mask = 0.0 if done else 1.0
            done_mask_lst.append([done_mask])

        return mg.tensor(s_lst, dtype=mg.float), mg.tensor(a_lst, dtype=mg.float), \
                mg.tensor(r_lst, dtype=mg.float), mg.tensor(s_prime_lst, dtype=mg.float), \
                mg.tensor(done_mask_lst, dtype=mg.float)

    def size(self):
        return len(self.buffer)


class PolicyNet(nn.Module):
    def __init__(self, learning_rate):
        super(PolicyNet, self).__init__()
        self.fc1 = nn.Linear(3, 32)
        self.fc_mu = nn.Linear(32,1)
        self.fc_std  = nn.Linear(32,1)
        self.optimizer = optim.Adam(self.parameters(), lr=learning_rate)

        self.log_alpha = mg.tensor(np.log(init_alpha))
        self.log_alpha.requires_grad = True
        self.log_alpha_optimizer = optim.Adam([self.log_alpha], lr=lr_alpha)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        mu = self.fc_mu(x)
        std = F.softplus(self.fc_std(x))
        dist = Normal(mu, std)
        action = dist.rsample()
        log_prob = dist.log_prob(action)
        real_action = mg.tanh(action)
        real_log_prob = log_prob - mg.log(1-mg.tanh(action).pow(2) + 1e-7)
        return real_action, real_log_prob

    def train_net(self, q1, q2, mini_batch):
        s, _, _, _, _ = mini_batch
        a, log_prob = self.forward(s)
        entropy = -self.log_alpha.exp() * log_prob

        q1_val, q2_val = q1(s,a), q2(s,a)
        q1_q2 = mg.cat([q1_val, q2_val], dim=1)
        min_q = mg.min(q1_q2, 1, keepdim=True)[0]

        loss = -min_q - entropy # for gradient ascent
        self.optimizer.zero_grad()
        loss.mean().backward()
        self.optimizer.step()

        self.log_alpha_optimizer.zero_grad()
        alpha_loss = -(self.log_alpha.exp() * (log_prob + target_entropy).detach()).mean()
        alpha_loss.backward()
        self.log_alpha_optimizer.step()
        return loss.mean().item(), alpha_loss.item()


class QNet(nn.Module):
    def __init__(self, learning_rate):
        super(QNet, self).__init__()
        self.fc_s = nn.Linear(3, 16)
        self.fc_a = nn.Linear(1,16)
        self.fc_cat = nn.Linear(32,16)
        self.fc_out = nn.Linear(16,1)
        self.optimizer = optim.Adam(self.parameters(), lr=learning_rate)

    def forward(self, x, a):
        h1 = F.relu(self.fc_s(x))
        h2 = F.relu(self.fc_a(a))
        cat = mg.cat([h1,h2], dim=1)
        q = F.relu(self.fc_cat(cat))
        q = self.fc_out(q)
        return q

    def train_net(self, target, mini_batch):
        s, a, r, s_prime, done = mini_batch
        loss = F.smooth_l1_loss(self.forward(s, a) , target)
        self.optimizer.zero_grad()
        loss.mean().backward()
        self.optimizer.step()
        return loss.mean().item()

    def soft_update(self, net_target):
        for param_target, param in zip(net_target.parameters(), self.parameters()):
            param_target.data.copy_(param_target.data * (1.0 - tau) + param.data * tau)


def calc_target(pi, q1, q2, mini_batch):
    s, a, r, s_prime, done = mini_batch

    with mg.no_grad():
        a_prime, log_prob= pi(s_prime)
        entropy = -pi.log_alpha.exp() * log_prob
        q1_val, q2_val = q1(s_prime,a_prime), q2(s_prime,a_prime)
        q1_q2 = mg.cat([q1_val, q2_val], dim=1)
        min_q = mg.min(q1_q2, 1, keepdim=True)[0]
        target = r + gamma * done * (min_q + entropy)

    return target


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='minimalRL SAC')
    parser.add_argument('--episodes', type=int, default=3)
    parser.add_argument('--steps', type=int, default=20, help='steps per episode (the original: 200)')
    parser.add_argument('--warmup', type=int, default=16, help='buffer size before training (the original: 1000)')
    parser.add_argument('--updates', type=int, default=3, help='updates per episode (the original: 20)')
    args = parser.parse_args(argv)
    random.seed(0)
    env = Pendulum(limit=args.steps)
    memory = ReplayBuffer()
    q1, q2, q1_target, q2_target = QNet(lr_q), QNet(lr_q), QNet(lr_q), QNet(lr_q)
    pi = PolicyNet(lr_pi)
    if init is not None:  # a test hook: records or loads the starting weights
        for key, model in (('pi', pi), ('q1', q1), ('q2', q2), ('q1_target', q1_target), ('q2_target', q2_target)):
            init(key, model)

    q1_target.load_state_dict(q1.state_dict())
    q2_target.load_state_dict(q2.state_dict())

    score = 0.0
    print_interval = 1
    history = []

    for n_epi in range(args.episodes):
        s, _ = env.reset()
        done = False
        count = 0

        while count < 200 and not done:
            a, log_prob= pi(mg.from_numpy(s).float())
            s_prime, r, done, truncated, info = env.step([2.0*a.item()])
            memory.put((s, a.item(), r/10.0, s_prime, done))
            score +=r
            s = s_prime
            count += 1

        if memory.size()>args.warmup:
            for i in range(args.updates):
                mini_batch = memory.sample(batch_size)
                td_target = calc_target(pi, q1_target, q2_target, mini_batch)
                history.append(q1.train_net(td_target, mini_batch))
                history.append(q2.train_net(td_target, mini_batch))
                history.extend(pi.train_net(q1, q2, mini_batch))
                history.append(pi.log_alpha.item())
                q1.soft_update(q1_target)
                q2.soft_update(q2_target)

        if n_epi%print_interval==0 and n_epi!=0:
            print("# of episode :{}, avg score : {:.1f} alpha:{:.4f}".format(n_epi, score/print_interval, pi.log_alpha.exp()))
            history.append(score/print_interval)
            score = 0.0

    return history, (pi, q1, q2, q1_target, q2_target)


if __name__ == '__main__':
    main()
