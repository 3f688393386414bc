"""pytorch/examples ``reinforcement_learning/reinforce.py``, ported to minigrad_ckpt by a
mechanical rename.

    python examples/ported/reinforce.py --episodes 3

A policy network, actions sampled from ``Categorical(probs)`` (``mg.distributions``) with their
``log_prob`` kept, discounted returns normalized with ``.std()``, and Adam.
The environment is a small corridor written here (no ``gym``): the agent starts in the middle
and is paid for reaching the right end; the lines that differ are listed in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.optim as optim
from minigrad_ckpt.distributions import Categorical

eps = np.finfo(np.float32).eps.item()


class Corridor:
    """States 0..6 as one-hot rows, actions 0 (left) and 1 (right); reward 1 at the right end."""

    def __init__(self, n=7, max_steps=12):
        self.n, self.max_steps = n, max_steps

    def reset(self):
        self.pos, self.t = self.n // 2, 0
        return self.observe()

    def observe(self):
        state = np.zeros(self.n + 1, dtype=np.float32)
        state[self.pos] = 1.0
        state[-1] = self.t / self.max_steps
        return state

    def step(self, action):
        self.pos = max(0, min(self.n - 1, self.pos + (1 if action == 1 else -1)))
        self.t += 1
        done = self.pos == self.n - 1 or self.t == self.max_steps
        reward = 1.0 if self.pos == self.n - 1 else -0.05
        return self.observe(), reward, done


class Policy(nn.Module):
    def __init__(self, n_in=8):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(n_in, 32)
        self.dropout = nn.Dropout(p=0.0)
        self.affine2 = nn.Linear(32, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


def select_action(policy, state):
    state = mg.from_numpy(state).float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode(policy, optimizer, gamma):
    R = 0
    policy_loss = []
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = mg.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = mg.stack(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    return policy_loss.item()


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='PyTorch REINFORCE example')
    parser.add_argument('--gamma', type=float, default=0.99, metavar='G')
    parser.add_argument('--seed', type=int, default=543, metavar='N')
    parser.add_argument('--episodes', type=int, default=4)
    parser.add_argument('--log-interval', type=int, default=1, metavar='N')
    args = parser.parse_args(argv)
    mg.manual_seed(args.seed)
    env = Corridor()
    policy = Policy()
    if init is not None:  # a test hook: records or loads the starting weights
        init('policy', policy)
    optimizer = optim.Adam(policy.parameters(), lr=1e-2)
    running_reward = 10
    history = []
    for i_episode in range(1, args.episodes + 1):
        state, ep_reward = env.reset(), 0
        for t in range(1, 10000):
            action = select_action(policy, state)
            state, reward, done = env.step(action)
            policy.rewards.append(reward)
            ep_reward += reward
            if done:
                break
        running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
        history += [finish_episode(policy, optimizer, args.gamma), ep_reward, running_reward]
        if i_episode % args.log_interval == 0:
            print('Episode {}\tLast reward: {:.2f}\tAverage reward: {:.2f}'.format(
                  i_episode, ep_reward, running_reward))
    return history, policy


if __name__ == '__main__':
    main()
