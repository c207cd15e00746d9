"""The sandbox policy: one pure function decides what student code may touch; each
mechanism renders that one object; the proof's verdict is one rule."""

from __future__ import annotations

import os
from dataclasses import FrozenInstanceError

import pytest

from pacman.sandbox.config import SandboxConfig
from pacman.sandbox.landlock import allowed_reads
from pacman.sandbox.mounts import (
    choose_canaries,
    landlock_rules,
    make_worker_policy,
    mount_hidden,
    visible_tree,
)
from pacman.sandbox.policy import (
    ANSWER_MODULES,
    DEVICES,
    REQUIRED,
    Machine,
    describe_shortfalls,
    make_policy,
    shortfalls,
)

#: A checkout at /srv/pacman with a venv inside, and a wheel of the same project installed
#: in the system's site-packages.
MACHINE = Machine(
    project_roots=("/srv/pacman", "/usr/lib/python3/site-packages"),
    running_root="/srv/pacman",
    prefixes=("/srv/pacman/.venv", "/usr"),
    layouts="/srv/pacman/layouts",
)


def test_a_student_policy_hides_every_copy_of_the_answers():
    policy = make_policy(
        MACHINE,
        student=True,
        code_dir="/tmp/stage/code",
        deny=["/courses/cs188/test_cases"],
        scratch="/tmp/scratch",
    )
    assert policy.reads == (
        "/usr",
        "/lib",
        "/lib64",
        "/lib32",
        "/etc/ld.so.cache",
        "/etc/localtime",
        "/proc/self/status",
        "/srv/pacman/.venv",
        "/srv/pacman/pacman",
        "/srv/pacman/layouts",
        "/tmp/stage/code",
    )
    copies = ("/srv/pacman", "/usr/lib/python3/site-packages")
    assert policy.answers == (
        "/courses/cs188/test_cases",
        *(
            f"{root}/{name}"
            for root in copies
            for name in (
                "pacman/grading/diagnose.py",
                "pacman/grading/reference.py",
                "pacman/test_cases",
                "test_cases",
                "tests",
            )
        ),
        "/srv/pacman/agents",
        "/usr/lib/python3/site-packages/agents",
    )
    assert policy.grader_code == tuple(
        f"{root}/pacman/{code}" for root in copies for code in ("grading", "sandbox")
    )
    assert policy.keep == ("/srv/pacman/.venv", "/usr", "/tmp/stage/code")
    assert policy.writes == ("/tmp/scratch",)
    assert policy.devices == DEVICES
    assert policy.hidden_modules == ANSWER_MODULES
    assert (policy.max_threads, policy.max_scratch_entries) == (64, 1024)
    with pytest.raises(FrozenInstanceError):
        policy.reads = ()  # type: ignore[misc]


def test_grading_the_projects_own_agents_keeps_them_readable():
    policy = make_policy(MACHINE, student=False, code_dir=None, deny=[], scratch="/tmp/s")
    assert "/srv/pacman/agents" in policy.reads
    assert not any(path.endswith("/agents") for path in policy.answers)
    assert policy.hidden_modules == ()
    assert "/srv/pacman/tests" in policy.answers


def test_landlock_renders_the_policy_with_the_grader_code_hidden_too(tmp_path):
    project = tmp_path / "project"
    for folder in (
        "pacman/shims",
        "pacman/sandbox",
        "tests/fixtures",
        "agents",
        "layouts",
        "venv/lib",
    ):
        (project / folder).mkdir(parents=True)
    for name in ("pacman/state.py", "pacman/sandbox/inside.py", "pacman/shims/util.py",
                 "tests/fixtures/full_marks.py", "agents/search.py", "venv/lib/os.py"):  # fmt: skip
        (project / name).write_text("")
    machine = Machine(
        (str(project),), str(project), (str(project / "venv"),), str(project / "layouts")
    )
    policy = make_policy(machine, student=True, code_dir=None, deny=[], scratch="/nowhere")
    rules = landlock_rules(policy)
    assert rules["hidden"] == [*policy.answers, *policy.grader_code]
    granted = dict(allowed_reads(rules["reads"], rules["hidden"], rules["keep"]))
    readable = {os.path.relpath(p, project) for p, access in granted.items() if access != 8}
    listed_only = {os.path.relpath(p, project) for p, access in granted.items() if access == 8}
    assert {"pacman/state.py", "pacman/shims", "venv", "layouts"} <= readable
    # Folders with something hidden below may only be listed; a hidden one not even that.
    assert listed_only == {"pacman"}
    assert "pacman/grading" not in readable and "pacman/sandbox" not in readable
    assert not any(p.startswith(("tests", "agents", "pacman/sandbox/inside")) for p in readable)


def test_mounts_show_only_what_may_be_read_and_cover_the_answers_inside(tmp_path):
    prefix = tmp_path / "prefix"
    wheel = prefix / "site-packages"
    for folder in ("pacman/test_cases/q2", "pacman/shims", "tests", "agents"):
        (wheel / folder).mkdir(parents=True)
    (wheel / "pacman/test_cases/q2/0-small-tree.solution").write_text('action: "Left"\n')
    (wheel / "tests" / "a.py").write_text("")
    elsewhere = tmp_path / "old-course" / "test_cases"
    elsewhere.mkdir(parents=True)
    machine = Machine((str(wheel),), str(wheel), (str(prefix),), str(wheel / "pacman"))
    policy = make_policy(machine, student=True, code_dir=None, deny=[], scratch="/s")
    shown, covered = visible_tree(policy)
    assert str(prefix) in shown and not any(str(elsewhere).startswith(p) for p in shown)
    assert set(covered) == {
        str(wheel / "pacman/test_cases"),
        str(wheel / "tests"),
        str(wheel / "agents"),
    }
    assert set(mount_hidden(policy)) >= set(covered)
    assert choose_canaries((str(wheel / "pacman/test_cases"), str(wheel / "tests"))) == (
        str(wheel / "pacman/test_cases/q2/0-small-tree.solution"),
        str(wheel / "tests/a.py"),
    )


def test_the_worker_policy_comes_from_the_config(tmp_path):
    config = SandboxConfig(student_files=["x.py"], code_dir=str(tmp_path), deny=[str(tmp_path)])
    policy = make_worker_policy(config, "/scratch")
    assert policy.code_dir == os.path.realpath(tmp_path)
    assert policy.answers[0] == os.path.realpath(tmp_path)
    assert policy.writes == ("/scratch",)


def test_shortfalls_name_each_missing_protection_in_order():
    proven = dict.fromkeys(REQUIRED, True)
    assert shortfalls(proven) == []
    assert shortfalls({**proven, "answers_hidden": False, "no_capabilities": False}) == [
        "no_capabilities",
        "answers_hidden",
    ]
    # Anything not proven true is missing: an old worker's report, or a forged string.
    assert shortfalls({**proven, "grader_unreachable": "yes"}) == ["grader_unreachable"]
    assert shortfalls({}) == list(REQUIRED)
    assert describe_shortfalls(["answers_hidden", "grader_unreachable"]) == (
        "student code could read the test answers and signal the grader"
    )


def test_writes_are_contained_only_where_no_file_can_be_made_in_an_open_folder(tmp_path):
    from pacman.sandbox.proof import prove
    from pacman.sandbox.walls import Walls

    probe = tmp_path / "open-to-all"
    probe.mkdir()
    probe.chmod(0o1777)

    def contained(write_probe):
        found = prove(Walls(), isolation="process", grader_pid=os.getppid(), grader_uid=-1,
                      canaries=[], read_search_allowed=False, write_probe=write_probe)  # fmt: skip
        return found["writes_contained"]

    # This test process may write there: not contained, and what it made is there to see.
    assert contained(str(probe)) is False
    assert sorted(p.name for p in probe.iterdir()) == ["file"]
    # A folder that cannot be reached proves containment; no folder to try proves nothing.
    assert contained(str(tmp_path / "missing")) is True
    assert contained(None) is False
    assert "leave files outside its scratch folder" in describe_shortfalls(["writes_contained"])


def test_a_pids_cgroup_s_room_is_shared_by_halves():
    from pacman.sandbox.policy import MAX_THREADS, MIN_THREADS, PIDS_RESERVE, thread_cap

    assert thread_cap(None) == MAX_THREADS == 64  # no pids limit: the usual cap
    assert thread_cap(1000) == 64
    assert thread_cap(50) == (50 - PIDS_RESERVE) // 2 == 17
    assert thread_cap(10) == MIN_THREADS == 4  # honest code runs one thread
    # Four workers at once (-j 4), each taking all it may: the reserve is left, so the
    # grader and the next worker can still start.
    room, taken = 60, []
    for _ in range(4):
        taken.append(thread_cap(room))
        room -= taken[-1]
    assert (taken, room) == ([22, 11, 5, 4], 18) and room >= PIDS_RESERVE
