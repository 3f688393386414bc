"""The PyTorch tutorial "Reinforcement Learning (DQN) Tutorial"
(``intermediate_source/reinforcement_q_learning.py``), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/dqn.py

Deep Q-learning: a replay memory of ``namedtuple`` transitions, a policy network and a target
network (``load_state_dict`` of the policy's ``state_dict``, then a soft update over the
``state_dict`` items every step), Q values picked by ``gather``, the next states' values
``target_net(...).max(1).values`` under ``no_grad`` written through a boolean mask, the Huber loss,
``AdamW(amsgrad=True)`` and ``clip_grad_value_``.  Made small: gymnasium's CartPole -> ``Track``,
a deterministic NumPy environment written here; 16 hidden units (128), batches of 8 (128), a few
short episodes; ``EPS_DECAY`` is 50 (2500) so both branches of ``select_action`` run.  The lines
that differ are listed in ``README.md``.
"""

import argparse
import math
import random
from collections import deque, namedtuple
from itertools import count

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.optim as optim


class Discrete:
    """gymnasium's ``spaces.Discrete(n)``: ``n`` and ``sample()`` (drawn from Python's ``random``)."""

    def __init__(self, n):
        self.n = n

    def sample(self):
        return random.randrange(self.n)


class Track:
    """A cart on a track of positions -1..1 that must reach the right end: actions push left or
    right; the state is (position, velocity, distance to the goal, 1); the episode ends (terminated)
    at either end, or is cut (truncated) after ``limit`` steps.  Reward 1 at the goal, -1 at the left
    end, else -0.01.  Deterministic, NumPy only (gymnasium's API: ``reset`` and ``step``)."""

    def __init__(self, limit=12):
        self.action_space = Discrete(2)
        self.limit = limit

    def reset(self, seed=None):
        self.x, self.v, self.t = 0.0, 0.0, 0
        return self._observe(), {}

    def _observe(self):
        return np.array([self.x, self.v, 1.0 - self.x, 1.0])

    def step(self, action):
        self.v = 0.8 * self.v + (0.15 if action == 1 else -0.1)
        self.x = self.x + self.v
        self.t += 1
        terminated = abs(self.x) >= 1.0
        reward = (1.0 if self.x >= 1.0 else -1.0) if terminated else -0.01
        return self._observe(), reward, terminated, self.t >= self.limit, {}


Transition = namedtuple('Transition',
                        ('state', 'action', 'next_state', 'reward'))


class ReplayMemory(object):

    def __init__(self, capacity):
        self.memory = deque([], maxlen=capacity)

    def push(self, *args):
        """Save a transition"""
        self.memory.append(Transition(*args))

    def sample(self, batch_size):
        return random.sample(self.memory, batch_size)

    def __len__(self):
        return len(self.memory)


class DQN(nn.Module):

    def __init__(self, n_observations, n_actions):
        super(DQN, self).__init__()
        self.layer1 = nn.Linear(n_observations, 16)
        self.layer2 = nn.Linear(16, 16)
        self.layer3 = nn.Linear(16, n_actions)

    # Called with either one element to determine next action, or a batch
    # during optimization. Returns tensor([[left0exp,right0exp]...]).
    def forward(self, x):
        x = F.relu(self.layer1(x))
        x = F.relu(self.layer2(x))
        return self.layer3(x)


# BATCH_SIZE is the number of transitions sampled from the replay buffer
# GAMMA is the discount factor
# EPS_START is the starting value of epsilon, EPS_END the final value,
# EPS_DECAY the rate of its exponential decay (higher means a slower decay)
# TAU is the update rate of the target network
# LR is the learning rate of the ``AdamW`` optimizer
BATCH_SIZE = 8
GAMMA = 0.99
EPS_START = 0.9
EPS_END = 0.01
EPS_DECAY = 50
TAU = 0.005
LR = 3e-4


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='DQN')
    parser.add_argument('--episodes', type=int, default=6)
    args = parser.parse_args(argv)
    random.seed(0)
    mg.manual_seed(0)
    device = mg.device("cpu")
    env = Track()

    # Get number of actions from gym action space
    n_actions = env.action_space.n
    # Get the number of state observations
    state, info = env.reset()
    n_observations = len(state)

    policy_net = DQN(n_observations, n_actions).to(device)
    target_net = DQN(n_observations, n_actions).to(device)
    if init is not None:  # a test hook: records or loads the starting weights
        init('policy', policy_net)
        init('target', target_net)
    target_net.load_state_dict(policy_net.state_dict())

    optimizer = optim.AdamW(policy_net.parameters(), lr=LR, amsgrad=True)
    memory = ReplayMemory(10000)

    steps_done = 0
    losses = []

    def select_action(state):
        nonlocal steps_done
        sample = random.random()
        eps_threshold = EPS_END + (EPS_START - EPS_END) * \
            math.exp(-1. * steps_done / EPS_DECAY)
        steps_done += 1
        if sample > eps_threshold:
            with mg.no_grad():
                # t.max(1) will return the largest column value of each row.
                # second column on max result is index of where max element was
                # found, so we pick action with the larger expected reward.
                return policy_net(state).max(1).indices.view(1, 1)
        else:
            return mg.tensor([[env.action_space.sample()]], device=device, dtype=mg.long)

    def optimize_model():
        if len(memory) < BATCH_SIZE:
            return
        transitions = memory.sample(BATCH_SIZE)
        # Transpose the batch: an array of Transitions to a Transition of batch-arrays.
        batch = Transition(*zip(*transitions))

        # Compute a mask of non-final states and concatenate the batch elements
        # (a final state would've been the one after which simulation ended)
        non_final_mask = mg.tensor(tuple(map(lambda s: s is not None,
                                             batch.next_state)), device=device, dtype=mg.bool)
        non_final_next_states = mg.cat([s for s in batch.next_state
                                        if s is not None])
        state_batch = mg.cat(batch.state)
        action_batch = mg.cat(batch.action)
        reward_batch = mg.cat(batch.reward)

        # Compute Q(s_t, a) - the model computes Q(s_t), then we select the
        # columns of actions taken. These are the actions which would've been taken
        # for each batch state according to policy_net
        state_action_values = policy_net(state_batch).gather(1, action_batch)

        # Compute V(s_{t+1}) for all next states: 0 for a final state, else the
        # target network's best value, selected with max(1).values.
        next_state_values = mg.zeros(BATCH_SIZE, device=device)
        with mg.no_grad():
            next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
        # Compute the expected Q values
        expected_state_action_values = (next_state_values * GAMMA) + reward_batch

        # Compute Huber loss
        criterion = nn.SmoothL1Loss()
        loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))

        # Optimize the model
        optimizer.zero_grad()
        loss.backward()
        # In-place gradient clipping
        mg.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
        optimizer.step()
        losses.append(loss.item())

    episode_durations = []
    for i_episode in range(args.episodes):
        # Initialize the environment and get its state
        state, info = env.reset()
        state = mg.tensor(state, dtype=mg.float32, device=device).unsqueeze(0)
        for t in count():
            action = select_action(state)
            observation, reward, terminated, truncated, _ = env.step(action.item())
            reward = mg.tensor([reward], device=device)
            done = terminated or truncated

            if terminated:
                next_state = None
            else:
                next_state = mg.tensor(observation, dtype=mg.float32, device=device).unsqueeze(0)

            # Store the transition in memory
            memory.push(state, action, next_state, reward)

            # Move to the next state
            state = next_state

            # Perform one step of the optimization (on the policy network)
            optimize_model()

            # Soft update of the target network's weights
            # θ′ ← τ θ + (1 −τ )θ′
            target_net_state_dict = target_net.state_dict()
            policy_net_state_dict = policy_net.state_dict()
            for key in policy_net_state_dict:
                target_net_state_dict[key] = policy_net_state_dict[key]*TAU + target_net_state_dict[key]*(1-TAU)
            target_net.load_state_dict(target_net_state_dict)

            if done:
                episode_durations.append(t + 1)
                break

    print('Complete')
    return episode_durations + losses, (policy_net, target_net)


if __name__ == '__main__':
    main()
