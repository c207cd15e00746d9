"""Steps per second of the Gymnasium and PettingZoo environments, with random actions.

    python benchmarks/bench_envs.py [--layout mediumClassic] [--steps 100000] [--num-envs 8] [--repeat 3]
    python benchmarks/bench_envs.py --only batched [--repeat 3]

Actions are drawn up front (uniform over Discrete(5); with the default
``illegal_action="stop"`` a move into a wall is played as Stop), so the
figures measure the environment, not the sampler. Episodes are reset when they
end. Beside the grid figures: the feature observation, SB3's ``DummyVecEnv``
against ``PacmanSB3VecEnv`` (when stable-baselines3 is installed) and the
PettingZoo parallel game (a step is a move by every agent). Prints one line per
configuration: the best of ``--repeat`` runs (other processes only ever slow a
run down), the rate per CPU second of this process (what an idle machine would
show; not for async, whose work is in other processes), then every run.

With the defaults it runs for about 7 minutes on this project's 2-core machine (16
configurations, 3 runs of 100,000 steps each); ``--steps 10000 --repeat 1`` gives rough
figures in a tenth of the time. It says so when it starts.

Then the batched engine (``make_vec("pacman.envs:PacmanBatched-v0")``, grid observations, next-step
autoreset, the 1000-step limit) at N = 1, 64, 1,024 and 16,384 games, with the memory each game
holds (NumPy's allocations traced by ``tracemalloc``, divided by N), beside Jumanji's PacMan at
the same N: ``jit`` of a ``lax.scan`` over ``VmapAutoResetWrapper(PacMan-v1).step`` with random
actions drawn up front, compiled before the clock starts, memory as its state's bytes per game.
Jumanji is measured only where ``jax`` and ``jumanji`` import; install them beside the project
in a separate environment (``pip install -e '.[gym]' jax jumanji``), not in its own.
``--only batched`` runs this part alone.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gymnasium as gym

from pacman.envs import aec_env, parallel_env
from pacman.envs.single import PacmanEnv
from pacman.errors import PacmanError


class Clock:
    """Wall-clock and this process's CPU seconds between start() and rates()."""

    def start(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def rates(self, steps: int) -> tuple[float, float]:
        """Steps per wall-clock second and per CPU second of this process."""
        wall = time.perf_counter() - self.wall
        cpu = time.process_time() - self.cpu
        return steps / wall, steps / cpu if cpu > 0 else float("nan")


def single(env, steps: int, seed: int) -> tuple[float, float]:
    actions = np.random.default_rng(seed).integers(0, 5, size=steps).tolist()
    env.reset(seed=seed)
    clock = Clock()
    clock.start()
    for action in actions:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    return clock.rates(steps)


def masked(env, steps: int, seed: int) -> tuple[float, float]:
    """Legal random actions, chosen from info["action_mask"] (what a masked policy does)."""
    draws = np.random.default_rng(seed).random(steps).tolist()
    _, info = env.reset(seed=seed)
    clock = Clock()
    clock.start()
    for draw in draws:
        legal = np.flatnonzero(info["action_mask"])
        _, _, terminated, truncated, info = env.step(int(legal[int(draw * len(legal))]))
        if terminated or truncated:
            _, info = env.reset()
    return clock.rates(steps)


def vector(
    env_id: str,
    layout: str,
    num_envs: int,
    mode: str | None,
    steps: int,
    seed: int,
    observation: str = "grid",
) -> tuple[float, float]:
    """Sub-environment steps per second of make_vec (autoreset inside)."""
    envs = gym.make_vec(
        env_id, num_envs=num_envs, vectorization_mode=mode, layout=layout, observation=observation
    )
    try:
        return random_rounds(envs, max(1, steps // num_envs), num_envs, seed)
    finally:
        envs.close()


def random_rounds(envs, rounds: int, num_envs: int, seed: int) -> tuple[float, float]:
    """Steps per second of ``rounds`` steps of random actions (drawn before the clock starts)."""
    actions = np.random.default_rng(seed).integers(0, 5, size=(rounds, num_envs))
    envs.reset(seed=seed)
    clock = Clock()
    clock.start()
    for row in actions:
        envs.step(row)
    return clock.rates(rounds * num_envs)


def sb3_vector(make_envs, num_envs: int, steps: int, seed: int) -> tuple[float, float]:
    """Sub-environment steps per second of an SB3 VecEnv (it restarts finished games itself)."""
    envs = make_envs()
    try:
        rounds = max(1, steps // num_envs)
        actions = np.random.default_rng(seed).integers(0, 5, size=(rounds, num_envs))
        envs.seed(seed)
        envs.reset()
        clock = Clock()
        clock.start()
        for row in actions:
            envs.step(row)
        return clock.rates(rounds * num_envs)
    finally:
        envs.close()


def sb3_configurations(env_id: str, layout: str, n: int, steps: int, seed: int) -> list:
    """SB3's DummyVecEnv over gymnasium.make beside the batched adapter, when SB3 is installed."""
    try:
        from stable_baselines3.common.vec_env import DummyVecEnv

        from pacman.envs.sb3 import PacmanSB3VecEnv
    except Exception as error:
        print(f"(SB3 figures skipped: {error})")
        return []
    configurations = []
    for observation in ("grid", "features"):
        kwargs = {"layout": layout, "observation": observation}
        configurations += [
            (
                f"SB3 PacmanSB3VecEnv, {observation}, num_envs={n}",
                lambda kwargs=kwargs: sb3_vector(
                    lambda: PacmanSB3VecEnv(n, **kwargs), n, steps, seed
                ),
            ),
            (
                f"SB3 DummyVecEnv(gymnasium.make), {observation}, num_envs={n}",
                lambda kwargs=kwargs: sb3_vector(
                    lambda: DummyVecEnv([lambda: gym.make(env_id, **kwargs)] * n), n, steps, seed
                ),
            ),
        ]
    return configurations


def parallel(layout: str, steps: int, seed: int) -> tuple[float, float]:
    """Parallel-API steps (one move by every agent each) per second, masked random moves."""
    env = parallel_env(layout=layout)
    rng = np.random.default_rng(seed)
    observations, _ = env.reset(seed=seed)
    clock = Clock()
    clock.start()
    for _ in range(steps):
        if not env.agents:
            observations, _ = env.reset()
        actions = {}
        for agent, observation in observations.items():
            legal = np.flatnonzero(observation["action_mask"])
            actions[agent] = int(legal[int(rng.random() * len(legal))])
        observations, *_ = env.step(actions)
    return clock.rates(steps)


def aec(layout: str, steps: int, seed: int) -> tuple[float, float]:
    env = aec_env(layout=layout)
    draws = np.random.default_rng(seed).random(steps).tolist()
    env.reset(seed=seed)
    clock = Clock()
    clock.start()
    for draw in draws:
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.reset()
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[int(draw * len(legal))]))
    return clock.rates(steps)


BATCH_SIZES = (1, 64, 1024, 16384)
BATCHED_ID = "pacman.envs:PacmanBatched-v0"
#: Game steps a batched run aims at (between 100 and 3,000 batch steps, whatever N).
BATCHED_BUDGET = 2_000_000


def batch_rounds(num_envs: int) -> int:
    return max(100, min(3000, BATCHED_BUDGET // num_envs))


def batched(layout: str, num_envs: int, seed: int, ghost: str = "random") -> tuple[float, float]:
    """Game steps per second of the batched vector env (autoreset and time limit inside)."""
    envs = gym.make_vec(BATCHED_ID, num_envs=num_envs, layout=layout, ghost=ghost)
    return random_rounds(envs, batch_rounds(num_envs), num_envs, seed)


def batched_parallel(layout: str, num_envs: int, seed: int) -> tuple[float, float]:
    """Cycles (a move by every agent) per second of the batched PettingZoo-style game."""
    from pacman.envs.batched.zoo import PacmanBatchedParallelEnv

    env = PacmanBatchedParallelEnv(num_envs, layout=layout)
    rounds = batch_rounds(num_envs) // 4
    rng = np.random.default_rng(seed)
    moves = [{a: rng.integers(0, 5, num_envs) for a in env.possible_agents} for _ in range(rounds)]
    env.reset(seed=seed)
    clock = Clock()
    clock.start()
    for actions in moves:
        env.step(actions)
    return clock.rates(rounds * num_envs)


def batched_memory(layout: str, num_envs: int) -> float:
    """Bytes the batched env holds per game after a reset and a step (NumPy's, traced)."""
    tracemalloc.start()
    try:
        envs = gym.make_vec(BATCHED_ID, num_envs=num_envs, layout=layout)
        envs.reset(seed=0)
        step = envs.step(np.ones(num_envs, dtype=np.int64))
        del step
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del envs
    return held / num_envs


def jumanji_runner(num_envs: int, seed: int):
    """A timed Jumanji PacMan run of ``batch_rounds(num_envs)`` steps (compiled here), and its
    state's bytes per game; None when jax or jumanji is missing."""
    try:
        import jax
        import jumanji
        from jumanji.wrappers import VmapAutoResetWrapper
    except ImportError:
        return None
    env = VmapAutoResetWrapper(jumanji.make("PacMan-v1"))
    rounds = batch_rounds(num_envs)
    keys = jax.random.split(jax.random.PRNGKey(seed), num_envs)
    state, _ = jax.jit(env.reset)(keys)
    actions = jax.random.randint(jax.random.PRNGKey(seed + 1), (rounds, num_envs), 0, 5)

    def body(carry, action):
        carry, timestep = env.step(carry, action)
        return carry, timestep.reward.sum()  # something of every step leaves the scan

    run = jax.jit(lambda start, moves: jax.lax.scan(body, start, moves))
    jax.block_until_ready(run(state, actions))  # compile before timing
    memory = sum(leaf.nbytes for leaf in jax.tree_util.tree_leaves(state)) / num_envs

    def timed() -> tuple[float, float]:
        clock = Clock()
        clock.start()
        jax.block_until_ready(run(state, actions))
        return clock.rates(rounds * num_envs)

    return timed, memory


def batched_section(layout: str, repeat: int, seed: int) -> None:
    """The batched engine at every N, beside Jumanji's PacMan where it is installed."""
    print(
        f"\nbatched engine: make_vec({BATCHED_ID!r}), {layout}, grid observations, random actions;"
        f" best of {repeat}"
    )
    print(f"{'':52s} {'steps/s':>11s} {'per CPU s':>11s} {'bytes/game':>10s}  runs (steps/s)")
    rows = []
    for n in BATCH_SIZES:
        rows.append((f"batched, {layout}, N={n:,}", lambda n=n: batched(layout, n, seed), n))
    rows.append(
        (
            "batched, directional ghosts, N=1,024",
            lambda: batched(layout, 1024, seed, "directional"),
            1024,
        )
    )
    rows.append(
        (
            "batched, originalClassic (28x27, 4 ghosts), N=1,024",
            lambda: batched("originalClassic", 1024, seed),
            None,
        )
    )
    for name, run, n in rows:
        memory = f"{batched_memory(layout, n):,.0f}" if n else "-"
        _report(name, [run() for _ in range(repeat)], memory)
    try:
        _report(
            "batched multi-agent game (every agent moves), N=1,024",
            [batched_parallel(layout, 1024, seed) for _ in range(repeat)],
            "-",
        )
    except PacmanError as error:
        print(f"(batched multi-agent game skipped: {error})")
    # Today's vector env at the same size, for scale (20 batch steps: it is slow there).
    n = 1024
    rounds = 20
    _report(
        f"PacmanVectorEnv (object engine), N={n:,}",
        [vector("pacman.envs:Pacman-v0", layout, n, None, rounds * n, seed) for _ in range(repeat)],
        "-",
    )
    missing = None
    for n in BATCH_SIZES:
        runner = jumanji_runner(n, seed)
        if runner is None:
            missing = "jax or jumanji is not installed: pip install -e '.[gym]' jax jumanji"
            break
        timed, memory = runner
        _report(
            f"Jumanji PacMan-v1 (31x28, 4 ghosts), N={n:,}",
            [timed() for _ in range(repeat)],
            f"{memory:,.0f}",
        )
    if missing:
        print(f"(Jumanji skipped: {missing}, in an environment of its own)")


def _report(name: str, rates: list[tuple[float, float]], memory: str) -> None:
    best = max(wall for wall, _ in rates)
    cpu = max(c for _, c in rates)
    runs = ", ".join(f"{wall:,.0f}" for wall, _ in rates)
    print(f"{name:52s} {best:>11,.0f} {cpu:>11,.0f} {memory:>10s}  {runs}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout", default="mediumClassic")
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure; the best is shown")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--only",
        choices=("batched",),
        help="only the batched engine and Jumanji (the last part of a full run)",
    )
    args = parser.parse_args()
    layout, steps, n, seed = args.layout, args.steps, args.num_envs, args.seed
    if args.only == "batched":
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"{os.cpu_count()} CPUs, load average {load:.1f}")
        batched_section(layout, args.repeat, seed)
        return
    env_id = "pacman.envs:Pacman-v0"

    configurations = [
        ("PacmanEnv, random actions", lambda: single(PacmanEnv(layout), steps, seed)),
        ("PacmanEnv, masked random actions", lambda: masked(PacmanEnv(layout), steps, seed)),
        (
            "PacmanEnv, directional ghosts",
            lambda: single(PacmanEnv(layout, ghost="directional"), steps, seed),
        ),
        (
            "gymnasium.make (checker, order, time limit)",
            lambda: single(gym.make(env_id, layout=layout), steps, seed),
        ),
        (
            f"make_vec default (PacmanVectorEnv), num_envs={n}",
            lambda: vector(env_id, layout, n, None, steps, seed),
        ),
        (f"make_vec sync, num_envs={n}", lambda: vector(env_id, layout, n, "sync", steps, seed)),
        (f"make_vec async, num_envs={n}", lambda: vector(env_id, layout, n, "async", steps, seed)),
        (
            "PacmanEnv, features observation",
            lambda: single(PacmanEnv(layout, observation="features"), steps, seed),
        ),
        (
            f"make_vec default, features, num_envs={n}",
            lambda: vector(env_id, layout, n, None, steps, seed, "features"),
        ),
        (
            f"make_vec sync, features, num_envs={n}",
            lambda: vector(env_id, layout, n, "sync", steps, seed, "features"),
        ),
        *sb3_configurations(env_id, layout, n, steps, seed),
        ("PettingZoo AEC, masked random moves", lambda: aec(layout, steps, seed)),
        ("PettingZoo parallel, masked random cycles", lambda: parallel(layout, steps, seed)),
    ]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"layout {layout}, {steps} steps a run, best of {args.repeat}, "
        f"{os.cpu_count()} CPUs, load average {load:.1f}"
    )
    # About 11,400 steps a second over all configurations on this project's machine.
    seconds = len(configurations) * args.repeat * steps / 11_400
    took = f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"
    print(
        f"{len(configurations)} configurations x {args.repeat} runs x {steps:,} steps: "
        f"about {took} on a 2-core machine (--steps 10000 --repeat 1 for rough figures)",
        flush=True,
    )
    print(f"{'':58s} {'steps/s':>10s} {'per CPU s':>10s}  runs (steps/s)")
    for name, run in configurations:
        rates = [run() for _ in range(args.repeat)]
        best = max(wall for wall, _ in rates)
        cpu = "-" if "async" in name else f"{max(c for _, c in rates):,.0f}"
        runs = ", ".join(f"{wall:,.0f}" for wall, _ in rates)
        print(f"{name:58s} {best:>10,.0f} {cpu:>10s}  {runs}", flush=True)
    batched_section(layout, args.repeat, seed)


if __name__ == "__main__":
    main()
