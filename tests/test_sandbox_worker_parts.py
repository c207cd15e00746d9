"""The worker's parts on their own: the checked proof's record and the state its threads share."""

from __future__ import annotations

import json
import threading

from pacman.sandbox.lifeline import Lifeline
from pacman.sandbox.worker_proof import WorkerProof

#: A proof as a worker's greeting carries it (the keys in the order the worker sends them).
GREETING = {
    "isolation": "process",
    "uid": 1234,
    "separate_uid": True,
    "own_uid": True,
    "no_capabilities": True,
    "capabilities_held": {"CapEff": "4"},
    "bounding_set_empty": True,
    "no_new_privs": True,
    "seccomp": True,
    "landlock": 7,
    "landlock_net": True,
    "landlock_scopes": True,
    "answers_hidden": True,
    "answers_hidden_by": ["landlock"],
    "canaries": 5,
    "grader_unreachable": True,
    "writes_contained": True,
    "new_files_blocked": False,
    "pid_namespace": False,
    "parent_death_signal": True,
    "audit_hook": True,
    "honest_code_runs": True,
}


def test_a_proof_prints_as_the_worker_sent_it_key_for_key():
    proof = WorkerProof.from_greeting(GREETING)
    assert json.dumps(proof.as_dict()) == json.dumps(GREETING)


def test_the_marks_only_the_grader_adds_come_last_and_only_when_set():
    proof = WorkerProof.from_greeting(
        {**GREETING, "honest_code_runs": False, "honest_code_problem": "no numpy"}
    )
    marked = WorkerProof(**{**proof.__dict__, "uids_mapped": False, "answers_unlocked": ("a",)})
    assert list(marked.as_dict())[-4:] == [
        "honest_code_runs",
        "honest_code_problem",
        "uids_mapped",
        "answers_unlocked",
    ]
    assert marked.as_dict()["answers_unlocked"] == ["a"]
    assert "uids_mapped" not in proof.as_dict() and "answers_unlocked" not in proof.as_dict()


def test_a_proof_cannot_be_changed_once_made():
    proof = WorkerProof.from_greeting(GREETING)
    proof.as_dict()["answers_hidden_by"].append("permissions")
    assert proof.answers_hidden_by == ("landlock",)


def test_the_first_reason_a_worker_stopped_stands_whichever_thread_gives_it():
    lifeline = Lifeline()
    reasons = [f"reason {n}" for n in range(8)]
    threads = [threading.Thread(target=lifeline.end, args=(why,)) for why in reasons]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    first = lifeline.why
    assert first in reasons
    assert lifeline.end("later") == first and lifeline.why == first
