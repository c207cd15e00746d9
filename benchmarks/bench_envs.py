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
autoreset, the 1000-step limit) at N = 1, 64, 1,024 and 16,384 games (with ``copy=False`` too,
and the NumPy path where the Numba kernel is installed), with the memory each game holds
(NumPy's allocations traced by ``tracemalloc``, divided by N), and one game through
``gymnasium.make``. Each figure at N = 64 and 1,024 stands beside Jumanji's PacMan at the same N,
their runs taken in turn so both see the same load: ``jit`` of a ``lax.scan`` over
``VmapAutoResetWrapper(PacMan-v1).step`` with random actions drawn up front, compiled before the
clock starts, memory as its state's bytes per game. Jumanji is measured only where ``jax`` and
``jumanji`` import; install them beside the project in a separate environment
(``pip install -e '.[gym,fast]' jax jaxlib jumanji``), never in its own.
``--only batched`` runs this part alone (a few minutes).
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


def batched(layout: str, num_envs: int, seed: int, **kwargs) -> tuple[float, float]:
    """Game steps per second of the batched vector env (autoreset and time limit inside)."""
    envs = gym.make_vec(BATCHED_ID, num_envs=num_envs, layout=layout, **kwargs)
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


def _compiled() -> bool:
    from pacman.envs.batched import kernel

    return kernel.available()


def batched_rows(layout: str, seed: int) -> list[tuple[str, object, int | None]]:
    """(name, run, N against Jumanji or None) of every batched figure."""
    rows: list[tuple[str, object, int | None]] = [
        (
            f"gymnasium.make({BATCHED_ID.split(':')[1]!r}), one game",
            lambda: single(gym.make(BATCHED_ID, layout=layout), 20_000, seed),
            None,
        ),
        (
            "gymnasium.make('Pacman-v0'), one game",
            lambda: single(gym.make("pacman.envs:Pacman-v0", layout=layout), 20_000, seed),
            None,
        ),
    ]
    for n in BATCH_SIZES:
        rows.append((f"batched, {layout}, N={n:,}", lambda n=n: batched(layout, n, seed), n))
        if n in (64, 1024):
            rows.append(
                (
                    f"batched, {layout}, N={n:,}, copy=False",
                    lambda n=n: batched(layout, n, seed, copy=False),
                    n,
                )
            )
    if _compiled():
        for n in (64, 1024):
            rows.append(
                (
                    f"batched, NumPy path (compiled=False), N={n:,}",
                    lambda n=n: batched(layout, n, seed, compiled=False),
                    None,
                )
            )
    rows.append(
        (
            "batched, directional ghosts, N=1,024",
            lambda: batched(layout, 1024, seed, ghost="directional"),
            None,
        )
    )
    for copy in (True, False):
        rows.append(
            (
                "batched, originalClassic (28x27, 4 ghosts), N=1,024"
                + ("" if copy else ", copy=False"),
                lambda copy=copy: batched("originalClassic", 1024, seed, copy=copy),
                1024,
            )
        )
    return rows


def batched_section(layout: str, repeat: int, seed: int) -> None:
    """The batched engine at every N, each figure beside Jumanji's PacMan at the same N,
    measured in turn (ours, then Jumanji's, ``repeat`` times) so that both see the same load."""
    engine = "Numba kernel" if _compiled() else "NumPy (pip install '.[fast]' for the kernel)"
    print(
        f"\nbatched engine ({engine}): make_vec({BATCHED_ID!r}), grid observations, random "
        f"actions; best of {repeat}, each run beside a Jumanji PacMan-v1 run (31x28, 4 ghosts, "
        f"jit of a lax.scan over vmap) at the same N"
    )
    print(
        f"{'':58s} {'steps/s':>11s} {'per CPU s':>11s} {'Jumanji':>11s} {'ratio':>6s} "
        f"{'bytes/game':>10s}  runs (ours / Jumanji's)"
    )
    runners: dict[int, object] = {}
    missing = False
    for name, run, n in batched_rows(layout, seed):
        if n is not None and n not in runners and not missing:
            runners[n] = jumanji_runner(n, seed)
            missing = runners[n] is None
        theirs = runners.get(n) if n is not None else None
        ours, peers = [], []
        for _ in range(repeat):
            ours.append(run())
            if theirs is not None:
                peers.append(theirs[0]())
        memory = f"{batched_memory(layout, n):,.0f}" if n and "original" not in name else "-"
        _compare(name, ours, peers, memory)
    try:
        _compare(
            "batched multi-agent game (every agent moves), N=1,024",
            [batched_parallel(layout, 1024, seed) for _ in range(repeat)],
            [],
            "-",
        )
    except PacmanError as error:
        print(f"(batched multi-agent game skipped: {error})")
    # Today's vector env at the same size, for scale (20 batch steps: it is slow there).
    n = 1024
    _compare(
        f"PacmanVectorEnv (object engine), N={n:,}",
        [vector("pacman.envs:Pacman-v0", layout, n, None, 20 * n, seed) for _ in range(repeat)],
        [],
        "-",
    )
    for n, runner in sorted(runners.items()):
        if runner is not None:
            print(f"Jumanji PacMan-v1 state, N={n:,}: {runner[1]:,.0f} bytes a game")
    if missing:
        print(
            "(Jumanji skipped: jax or jumanji is not installed; in an environment of its own: "
            "pip install -e '.[gym]' jax jaxlib jumanji)"
        )


def _compare(
    name: str, ours: list[tuple[float, float]], peers: list[tuple[float, float]], memory: str
) -> None:
    best = max(wall for wall, _ in ours)
    cpu = max(c for _, c in ours)
    runs = ", ".join(f"{wall:,.0f}" for wall, _ in ours)
    peer, ratio = "-", "-"
    if peers:
        their_best = max(wall for wall, _ in peers)
        peer, ratio = f"{their_best:,.0f}", f"{best / their_best:.2f}"
        runs += " / " + ", ".join(f"{wall:,.0f}" for wall, _ in peers)
    print(
        f"{name:58s} {best:>11,.0f} {cpu:>11,.0f} {peer:>11s} {ratio:>6s} {memory:>10s}  {runs}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout", default="mediumClassic")
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure; the best is shown")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--only", choices=("batched",), help="only the batched engine and Jumanji (a few minutes)"
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
