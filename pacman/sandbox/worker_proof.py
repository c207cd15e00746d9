"""What a worker proved about its walls (:func:`.proof.prove`), checked against the
kernel's view of it from outside, as one frozen record.

Results and reports print it as :meth:`WorkerProof.as_dict`: the worker's keys in the
order it sent them, then the marks only the grader adds (``uids_mapped``,
``answers_unlocked``) where it added them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from typing import Any

from pacman.sandbox.identity import capability_sets, process_status
from pacman.sandbox.ids import submission_ids

#: The keys that appear only when set (the rest are always reported).
_WHEN_SET = ("honest_code_problem", "uids_mapped", "answers_unlocked")


@dataclasses.dataclass(frozen=True)
class WorkerProof:
    """One worker's checked protections (see :mod:`.walls` and :mod:`.proof` for each)."""

    isolation: str | None = None
    uid: int | None = None
    separate_uid: bool | None = None
    own_uid: bool | None = None
    no_capabilities: bool | None = None
    capabilities_held: tuple[tuple[str, str], ...] = ()
    bounding_set_empty: bool | None = None
    no_new_privs: bool | None = None
    seccomp: bool | None = None
    landlock: int | None = None
    landlock_net: bool | None = None
    landlock_scopes: bool | None = None
    answers_hidden: bool | None = None
    answers_hidden_by: tuple[str, ...] = ()
    canaries: int | None = None
    grader_unreachable: bool | None = None
    writes_contained: bool | None = None
    new_files_blocked: bool | None = None
    pid_namespace: bool | None = None
    parent_death_signal: bool | None = None
    audit_hook: bool | None = None
    honest_code_runs: bool | None = None
    honest_code_problem: str | None = None
    uids_mapped: bool | None = None
    answers_unlocked: tuple[str, ...] | None = None

    @classmethod
    def from_greeting(cls, said: dict[str, Any]) -> WorkerProof:
        """The proof as the worker sent it (keys it does not know are left out)."""
        known = {field.name for field in dataclasses.fields(cls)}
        fields = {name: value for name, value in said.items() if name in known}
        if "capabilities_held" in fields:
            fields["capabilities_held"] = tuple(dict(fields["capabilities_held"]).items())
        for name in ("answers_hidden_by", "answers_unlocked"):
            if fields.get(name) is not None:
                fields[name] = tuple(fields[name])
        return cls(**fields)

    def as_dict(self) -> dict[str, Any]:
        """The proof as results and reports print it."""
        found: dict[str, Any] = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.name in _WHEN_SET and value is None:
                continue
            if field.name == "capabilities_held":
                value = dict(value)
            elif isinstance(value, tuple):
                value = list(value)
            found[field.name] = value
        return found


def checked_proof(
    said: dict[str, Any], pid: int, isolation: str, write_probe: str, unlocked: list[str]
) -> WorkerProof:
    """The worker's proof, with the kernel's view put over it.

    The greeting comes before any student code runs, so it is the grader's code speaking;
    what /proc shows of the worker ``pid`` from outside is checked all the same.
    ``unlocked``: the locks that could not be applied (``PATH (why)``).
    """
    proof = WorkerProof.from_greeting(said)
    status = process_status(pid)
    marks: dict[str, Any] = {}
    if "Uid" in status:
        marks.update(_uid_marks(proof, [int(u) for u in status["Uid"].split()], isolation))
    sets = capability_sets(status)
    if sets:
        allowed = (1 << 2) if proof.landlock else 0  # CAP_DAC_READ_SEARCH
        if any(bits & ~allowed for name, bits in sets.items() if name != "CapBnd"):
            marks["no_capabilities"] = False
    if status.get("Seccomp") != "2":
        marks["seccomp"] = False
    if status.get("NoNewPrivs") != "1":
        marks["no_new_privs"] = False
    with contextlib.suppress(OSError):
        if os.listdir(write_probe):  # the proof's own attempt left something
            marks["writes_contained"] = False
    if unlocked:  # a lock missing: whatever the canaries found, it is not hidden
        marks["answers_hidden"] = False
        marks["answers_unlocked"] = tuple(unlocked)
    marks["isolation"] = isolation
    return dataclasses.replace(proof, **marks)


def _uid_marks(proof: WorkerProof, uids: list[int], isolation: str) -> dict[str, Any]:
    """What the worker's real, effective, saved and file-system uids disprove."""
    marks: dict[str, Any] = {"uid": uids[0]}
    grader = os.geteuid()
    if any(u in (0, grader) for u in uids):
        marks["separate_uid"] = False
        scoped = grader != 0 and proof.landlock_scopes is True and 0 not in uids
        # Root's own uid in a user namespace that maps no other (see proof.prove).
        contained = (
            isolation == "namespaces"
            and proof.pid_namespace is True
            and all(u == grader for u in uids)
        )
        if not (scoped or contained):
            marks["own_uid"] = False
        if grader == 0 and not submission_ids():
            marks["uids_mapped"] = False
    return marks
