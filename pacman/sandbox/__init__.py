"""Running untrusted code: the policy, the kernel mechanisms that render it, the proof, the
worker process (the grader's handle on it and the code inside it), the protocol between
them, clean-up, and agents that play from a worker. (Untrusted strings are made safe by
:mod:`pacman.untrusted`, in the engine's floor: the game's own messages use it too.)

Below the grader and the game runner, above the engine and the agents: nothing here knows
of suites, grades or batches.
"""
