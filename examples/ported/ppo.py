"""CleanRL's single-file PPO (vwxyzjn/cleanrl ``cleanrl/ppo.py``), ported to minigrad_ckpt by a mechanical
rename.

    python examples/ported/ppo.py

Proximal policy optimization on a vector of environments: an ``Agent`` of two ``Sequential`` MLPs whose
``Linear`` layers go through ``layer_init`` (``nn.init.orthogonal_`` with a gain, ``nn.init.constant_`` on
the bias), a ``Categorical(logits=...)`` policy sampled under ``no_grad``, rollout storage written row by
row (``obs[step] = next_obs``), generalized advantage estimation in a reversed loop with a chained
assignment (``advantages[t] = lastgaelam = ...``), minibatches picked by NumPy index arrays from a
``np.random.shuffle``, the clipped surrogate through ``torch.max`` of two losses (equal wherever the
ratio is inside the clip range) and ``torch.clamp``, the clipped value loss, ``clip_grad_norm_``, and
the learning rate annealed by writing ``optimizer.param_groups[0]["lr"]``.  Made small: gymnasium's
CartPole -> ``CartPole``, its dynamics in NumPy behind a ``SyncVectorEnv`` with gymnasium's autoreset,
2 environments (4), 16 steps a rollout (128), 96 timesteps (500000); tyro's ``Args`` are plain class
attributes and tensorboard's ``SummaryWriter`` is left out.  The lines that differ are listed in
``README.md``.
"""

import argparse
import math
import random
import time

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.optim as optim
from minigrad_ckpt.distributions.categorical import Categorical


class Args:
    exp_name: str = "ppo"
    seed: int = 1
    torch_deterministic: bool = True
    cuda: bool = True
    env_id: str = "CartPole-v1"
    total_timesteps: int = 96
    learning_rate: float = 2.5e-4
    num_envs: int = 2
    num_steps: int = 16
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 2
    norm_adv: bool = True
    clip_coef: float = 0.2
    clip_vloss: bool = True
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float = None
    batch_size: int = 0
    minibatch_size: int = 0
    num_iterations: int = 0


class Discrete:
    def __init__(self, n):
        self.n, self.shape = n, ()


class Box:
    def __init__(self, shape):
        self.shape = shape


class CartPole:
    """gymnasium's ``CartPole-v1`` dynamics (Euler steps), its reset drawn from a seeded NumPy generator;
    ``RecordEpisodeStatistics``'s ``info["episode"]`` at an episode's end."""

    observation_space, action_space = Box((4,)), Discrete(2)

    def __init__(self, seed, max_steps=12):
        self.rng, self.max_steps = np.random.default_rng(seed), max_steps

    def reset(self, seed=None):
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
        truncated = self.t >= self.max_steps and not terminated
        info = {"episode": {"r": np.array([float(self.t)]), "l": np.array([self.t])}} if terminated or truncated else {}
        return self.state.astype(np.float32), 1.0, terminated, truncated, info


class SyncVectorEnv:
    """gymnasium 0.29's ``SyncVectorEnv``: stacked observations, an ended environment reset at once, its
    last observation and info under ``final_observation`` and ``final_info``."""

    def __init__(self, env_fns):
        self.envs = [fn() for fn in env_fns]
        self.num_envs = len(self.envs)
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space

    def reset(self, seed=None):
        return np.stack([env.reset()[0] for env in self.envs]), {}

    def step(self, actions):
        obs, rewards, terminations, truncations, infos = [], [], [], [], {}
        for i, (env, action) in enumerate(zip(self.envs, actions)):
            o, r, term, trunc, info = env.step(action)
            if term or trunc:
                infos.setdefault("final_observation", np.full(self.num_envs, None, dtype=object))[i] = o
                infos.setdefault("final_info", np.full(self.num_envs, None, dtype=object))[i] = info
                o, _ = env.reset()
            obs.append(o)
            rewards.append(r)
            terminations.append(term)
            truncations.append(trunc)
        return np.stack(obs), np.array(rewards), np.array(terminations), np.array(truncations), infos

    def close(self):
        pass


def make_env(env_id, idx, capture_video, run_name):
    def thunk():
        env = CartPole(seed=idx)
        return env

    return thunk


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    mg.nn.init.orthogonal_(layer.weight, std)
    mg.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, envs):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(np.array(envs.single_observation_space.shape).prod(), 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(np.array(envs.single_observation_space.shape).prod(), 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, envs.single_action_space.n), std=0.01),
        )

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        logits = self.actor(x)
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="cleanrl's ppo.py, small")
    parser.add_argument("--total-timesteps", type=int, default=Args.total_timesteps)
    parser.add_argument("--learning-rate", type=float, default=Args.learning_rate)
    args = Args()
    args.total_timesteps = parser.parse_args(argv).total_timesteps
    args.learning_rate = parser.parse_args(argv).learning_rate
    args.batch_size = int(args.num_envs * args.num_steps)
    args.minibatch_size = int(args.batch_size // args.num_minibatches)
    args.num_iterations = args.total_timesteps // args.batch_size
    run_name = f"{args.env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"
    history = []

    # TRY NOT TO MODIFY: seeding
    random.seed(args.seed)
    np.random.seed(args.seed)
    mg.manual_seed(args.seed)
    mg.backends.cudnn.deterministic = args.torch_deterministic

    device = mg.device("cuda" if mg.cuda.is_available() and args.cuda else "cpu")

    # env setup
    envs = SyncVectorEnv(
        [make_env(args.env_id, i, False, run_name) for i in range(args.num_envs)],
    )
    assert isinstance(envs.single_action_space, Discrete), "only discrete action space is supported"

    agent = Agent(envs).to(device)
    if init is not None:
        init("agent", agent)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # ALGO Logic: Storage setup
    obs = mg.zeros((args.num_steps, args.num_envs) + envs.single_observation_space.shape).to(device)
    actions = mg.zeros((args.num_steps, args.num_envs) + envs.single_action_space.shape).to(device)
    logprobs = mg.zeros((args.num_steps, args.num_envs)).to(device)
    rewards = mg.zeros((args.num_steps, args.num_envs)).to(device)
    dones = mg.zeros((args.num_steps, args.num_envs)).to(device)
    values = mg.zeros((args.num_steps, args.num_envs)).to(device)

    # TRY NOT TO MODIFY: start the game
    global_step = 0
    start_time = time.time()
    next_obs, _ = envs.reset(seed=args.seed)
    next_obs = mg.Tensor(next_obs).to(device)
    next_done = mg.zeros(args.num_envs).to(device)

    for iteration in range(1, args.num_iterations + 1):
        # Annealing the rate if instructed to do so.
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / args.num_iterations
            lrnow = frac * args.learning_rate
            optimizer.param_groups[0]["lr"] = lrnow

        for step in range(0, args.num_steps):
            global_step += args.num_envs
            obs[step] = next_obs
            dones[step] = next_done

            # ALGO LOGIC: action logic
            with mg.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs)
                values[step] = value.flatten()
            actions[step] = action
            logprobs[step] = logprob

            # TRY NOT TO MODIFY: execute the game and log data.
            next_obs, reward, terminations, truncations, infos = envs.step(action.cpu().numpy())
            next_done = np.logical_or(terminations, truncations)
            rewards[step] = mg.tensor(reward).to(device).view(-1)
            next_obs, next_done = mg.Tensor(next_obs).to(device), mg.Tensor(next_done).to(device)

            if "final_info" in infos:
                for info in infos["final_info"]:
                    if info and "episode" in info:
                        print(f"global_step={global_step}, episodic_return={info['episode']['r']}")
                        history.append(float(info["episode"]["r"][0]))

        # bootstrap value if not done
        with mg.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = mg.zeros_like(rewards).to(device)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    nextnonterminal = 1.0 - next_done
                    nextvalues = next_value
                else:
                    nextnonterminal = 1.0 - dones[t + 1]
                    nextvalues = values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns = advantages + values

        # flatten the batch
        b_obs = obs.reshape((-1,) + envs.single_observation_space.shape)
        b_logprobs = logprobs.reshape(-1)
        b_actions = actions.reshape((-1,) + envs.single_action_space.shape)
        b_advantages = advantages.reshape(-1)
        b_returns = returns.reshape(-1)
        b_values = values.reshape(-1)

        # Optimizing the policy and value network
        b_inds = np.arange(args.batch_size)
        clipfracs = []
        for epoch in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for start in range(0, args.batch_size, args.minibatch_size):
                end = start + args.minibatch_size
                mb_inds = b_inds[start:end]

                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb_inds], b_actions.long()[mb_inds])
                logratio = newlogprob - b_logprobs[mb_inds]
                ratio = logratio.exp()

                with mg.no_grad():
                    # calculate approx_kl http://joschu.net/blog/kl-approx.html
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs += [((ratio - 1.0).abs() > args.clip_coef).float().mean().item()]

                mb_advantages = b_advantages[mb_inds]
                if args.norm_adv:
                    mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)

                # Policy loss
                pg_loss1 = -mb_advantages * ratio
                pg_loss2 = -mb_advantages * mg.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = mg.max(pg_loss1, pg_loss2).mean()

                # Value loss
                newvalue = newvalue.view(-1)
                if args.clip_vloss:
                    v_loss_unclipped = (newvalue - b_returns[mb_inds]) ** 2
                    v_clipped = b_values[mb_inds] + mg.clamp(
                        newvalue - b_values[mb_inds],
                        -args.clip_coef,
                        args.clip_coef,
                    )
                    v_loss_clipped = (v_clipped - b_returns[mb_inds]) ** 2
                    v_loss_max = mg.max(v_loss_unclipped, v_loss_clipped)
                    v_loss = 0.5 * v_loss_max.mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_returns[mb_inds]) ** 2).mean()

                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef

                optimizer.zero_grad()
                loss.backward()
                grad_norm = nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
                history += [loss.item(), grad_norm.item()]

            if args.target_kl is not None and approx_kl > args.target_kl:
                break

        y_pred, y_true = b_values.cpu().numpy(), b_returns.cpu().numpy()
        var_y = np.var(y_true)
        explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y

        # TRY NOT TO MODIFY: record rewards for plotting purposes
        history += [optimizer.param_groups[0]["lr"], v_loss.item(), pg_loss.item(), entropy_loss.item(),
                    old_approx_kl.item(), approx_kl.item(), np.mean(clipfracs), float(explained_var)]
        print("SPS:", int(global_step / (time.time() - start_time)))

    envs.close()
    return history, agent


if __name__ == "__main__":
    main()
