"""The batched array engine: many games of one board size stepped together with NumPy.

- :class:`~pacman.envs.batched.engine.BatchedGames`: the games as arrays, CS188's rules, moved
  by NumPy or by the Numba kernel of :mod:`~pacman.envs.batched.kernel` (the ``[fast]`` extra);
- :class:`~pacman.envs.batched.gymenv.PacmanBatchedVectorEnv`: a Gymnasium ``VectorEnv`` on it,
  what ``gymnasium.make_vec("pacman.envs:PacmanBatched-v0", num_envs=N)`` builds, and
  :class:`~pacman.envs.batched.gymenv.PacmanBatchedEnv`, one of its games as a ``gymnasium.Env``;
- :class:`~pacman.envs.batched.zoo.PacmanBatchedParallelEnv`: the multi-agent game batched, the
  ghosts learners too (PettingZoo's parallel API, one array per agent);
- :class:`~pacman.envs.batched.streams.StreamRandom`: a game's ghost draws as a
  ``random.Random``, so the object engine's ghosts can draw exactly as a batched game's do.

See docs/envs.md, "The batched engine".
"""
