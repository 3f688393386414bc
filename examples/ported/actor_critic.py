"""pytorch/examples ``reinforcement_learning/actor_critic.py``, ported to minigrad_ckpt by a
mechanical rename.

    python examples/ported/actor_critic.py --episodes 3

One network with two heads: the actor's action probabilities (``softmax``, sampled with
``Categorical``) and the critic's state value; per episode the policy loss
``-log_prob * advantage`` and the value loss ``F.smooth_l1_loss(value, mg.tensor([R]))`` (``R`` a
0-d tensor of the normalized returns) are stacked, summed and stepped with Adam.  The
environment is CartPole's physics written here (no ``gym``), started from a fixed state; the
lines that differ are listed in ``README.md``.
"""

import argparse
import math
from collections import namedtuple

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.optim as optim
from minigrad_ckpt.distributions import Categorical


class CartPole:
    """gymnasium's ``CartPole-v1`` dynamics (Euler steps), its reset drawn from a seeded NumPy generator."""

    def __init__(self, seed, max_steps=30):
        self.rng, self.max_steps = np.random.default_rng(seed), max_steps

    def reset(self):
        self.state, self.t = self.rng.uniform(-0.05, 0.05, 4), 0
        return self.state.astype(np.float32), {}

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if action == 1 else -10.0
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sin) / 1.1
        theta_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos ** 2 / 1.1))
        x_acc = temp - 0.05 * theta_acc * cos / 1.1
        self.state = np.array([x + 0.02 * x_dot, x_dot + 0.02 * x_acc,
                               theta + 0.02 * theta_dot, theta_dot + 0.02 * theta_acc])
        self.t += 1
        terminated = bool(abs(self.state[0]) > 2.4 or abs(self.state[2]) > 12 * 2 * math.pi / 360)
        return self.state.astype(np.float32), 1.0, terminated, self.t >= self.max_steps, {}


SavedAction = namedtuple('SavedAction', ['log_prob', 'value'])


class Policy(nn.Module):
    """
    implements both actor and critic in one model
    """
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(4, 32)
        # actor's layer
        self.action_head = nn.Linear(32, 2)
        # critic's layer
        self.value_head = nn.Linear(32, 1)
        # action & reward buffer
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        action_prob = F.softmax(self.action_head(x), dim=-1)
        state_values = self.value_head(x)
        return action_prob, state_values


eps = np.finfo(np.float32).eps.item()


def select_action(model, state):
    state = mg.from_numpy(state).float()
    probs, state_value = model(state)
    m = Categorical(probs)
    action = m.sample()
    model.saved_actions.append(SavedAction(m.log_prob(action), state_value))
    return action.item()


def finish_episode(model, optimizer, gamma):
    R = 0
    saved_actions = model.saved_actions
    policy_losses = []  # list to save actor (policy) loss
    value_losses = []  # list to save critic (value) loss
    returns = []  # list to save the true values
    for r in model.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = mg.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for (log_prob, value), R in zip(saved_actions, returns):
        advantage = R - value.item()
        policy_losses.append(-log_prob * advantage)
        value_losses.append(F.smooth_l1_loss(value, mg.tensor([R])))
    optimizer.zero_grad()
    loss = mg.stack(policy_losses).sum() + mg.stack(value_losses).sum()
    loss.backward()
    optimizer.step()
    del model.rewards[:]
    del model.saved_actions[:]
    return loss.item()


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='PyTorch actor-critic example')
    parser.add_argument('--gamma', type=float, default=0.99, metavar='G')
    parser.add_argument('--seed', type=int, default=543, metavar='N')
    parser.add_argument('--episodes', type=int, default=4)
    parser.add_argument('--log-interval', type=int, default=1, metavar='N')
    args = parser.parse_args(argv)
    env = CartPole(seed=args.seed)
    mg.manual_seed(args.seed)
    model = Policy()
    if init is not None:  # a test hook: records or loads the starting weights
        init('policy', model)
    optimizer = optim.Adam(model.parameters(), lr=3e-2)
    running_reward = 10
    history = []
    for i_episode in range(1, args.episodes + 1):
        state, _ = env.reset()
        ep_reward = 0
        for t in range(1, 10000):
            action = select_action(model, state)
            state, reward, terminated, truncated, _ = env.step(action)
            model.rewards.append(reward)
            ep_reward += reward
            if terminated or truncated:
                break
        running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
        history += [finish_episode(model, optimizer, args.gamma), ep_reward, running_reward]
        if i_episode % args.log_interval == 0:
            print(f'Episode {i_episode}\tLast reward: {ep_reward:.2f}\tAverage reward: {running_reward:.2f}')
    return history, model


if __name__ == '__main__':
    main()
