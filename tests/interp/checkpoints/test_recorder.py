"""Checkpoints around blocks (interp/checkpoints/recorder.py), with real git and real folders:
an unchanged folder costs no git run, each problem is one line and never an exception."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

from languages.jupyter import JupyterRunner
from languages.jupyter.kernel import KernelChoice

from interp.checkpoints.history import read_history
from interp.checkpoints.recorder import Checkpoints
from interp.checkpoints.shadow import Shadow
from interp.core.files import workspace


def _git_counting(tmp_path: Path) -> tuple[str, Path]:
    """A git that logs each call to a file, then runs the real one."""
    calls = tmp_path / "git-calls"
    script = tmp_path / "bin" / "git"
    script.parent.mkdir()
    script.write_text(f'#!/bin/sh\necho "$*" >> {calls}\nexec {shutil.which("git")} "$@"\n')
    script.chmod(0o755)
    return str(script), calls


def _calls(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _snap(place):
    return workspace.snapshot(place.work)


def test_an_unchanged_folder_runs_no_git_and_a_change_is_recorded(place, tmp_path):
    for i in range(200):
        (place.work / f"f{i}.txt").write_text(f"{i}\n")
    git, calls = _git_counting(tmp_path)
    points = Checkpoints(place.base, place.work, place.sessions, git=git)
    host = place.host
    assert points.before_block(host, 1, "python", _snap(place)) == []
    assert any(" add -A " in call for call in _calls(calls))
    ran = len(_calls(calls))
    assert points.after_block(host, 1, _snap(place)) == []
    assert points.before_block(host, 2, "shell", _snap(place)) == []
    assert len(_calls(calls)) == ran  # nothing changed: the last state again, no git at all
    (place.work / "f1.txt").write_text("changed\n")
    assert points.after_block(host, 2, _snap(place)) == []
    assert len(_calls(calls)) > ran
    os.chmod(place.work / "f2.txt", 0o600)  # only the mode: git alone would not see it
    assert points.before_block(host, 3, "shell", _snap(place)) == []
    points.close()
    history = read_history(host.log.path)
    trees = [history.before[1], history.after[1], history.before[2], history.after[2],
             history.before[3]]
    assert len({m.state.tree for m in trees[:3]}) == 1 and trees[3].state.tree != trees[0].state.tree
    assert trees[4].state.modes == {"f2.txt": 0o600} and history.before[2].language == "shell"


def test_a_slow_snapshot_is_skipped_with_one_line_and_turns_off_after_three(place, tmp_path):
    (place.work / "a.txt").write_text("a\n")
    slow = tmp_path / "slow-git"  # a git whose `add` takes 5 s, as on a huge folder
    slow.write_text(f'#!/bin/sh\ncase " $* " in *" add "*) sleep 5;; esac\n'
                    f'exec {shutil.which("git")} "$@"\n')
    slow.chmod(0o755)
    points = Checkpoints(place.base, place.work, place.sessions, time_bound=0.3, git=str(slow))
    lines = [points.before_block(place.host, n, "python", _snap(place)) for n in (1, 2, 3)]
    points.close()
    assert all(len(said) == 1 and said[0].startswith(f"Checkpoint before block {n} skipped:")
               for n, said in enumerate(lines, 1)), lines
    assert "Checkpoints are off for the rest of this session." in lines[2][0]
    assert points.before_block(place.host, 4, "python", _snap(place)) == []
    assert points.off == "the folder is too slow to snapshot"
    history = read_history(place.host.log.path)
    assert history.before[1].state is None and history.before[1].why


def test_without_git_checkpoints_say_so_once(place, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    points = Checkpoints(place.base, place.work, place.sessions)
    assert points.prepare(place.host) == [
        "Checkpoints are off: git is not installed, so /rewind cannot undo what blocks do."]
    assert points.before_block(place.host, 1, "python", _snap(place)) == []
    assert not place.base.exists()


def test_an_unwritable_data_dir_says_so_once(place):
    place.base.parent.mkdir(parents=True, exist_ok=True)
    place.base.write_text("not a folder")
    points = Checkpoints(place.base, place.work, place.sessions)
    said = points.before_block(place.host, 1, "python", _snap(place))
    assert len(said) == 1 and said[0].startswith(
        f"Checkpoints are off: cannot write checkpoints to {place.base}:")
    assert points.after_block(place.host, 1, _snap(place)) == []


def test_a_gateway_kernels_blocks_say_they_are_not_covered(place):
    choice = KernelChoice(gateway_url="http://127.0.0.1:9")
    place.host.registry.register(JupyterRunner.for_language("python", ("py",), choice))
    points = Checkpoints(place.base, place.work, place.sessions)
    said = points.before_block(place.host, 1, "python", _snap(place))
    assert said == ["python blocks run on a Jupyter gateway: what they do to files there is "
                    "not checkpointed (/rewind cannot undo it)."]
    assert points.after_block(place.host, 1, _snap(place)) == []
    assert points.before_block(place.host, 2, "python", _snap(place)) == []  # said once
    assert points.before_block(place.host, 3, "shell", _snap(place)) == []
    points.close()
    history = read_history(place.host.log.path)
    assert history.before[1].why == "it ran on a Jupyter gateway" and 1 not in history.after
    assert history.before[3].state is not None


def test_big_files_and_nested_repositories_are_named_once(place):
    (place.work / "big.bin").write_bytes(b"x" * 5000)
    (place.work / "small.txt").write_text("s\n")
    nested = place.work / "vendor"
    nested.mkdir()
    subprocess.run(["git", "init", "-q", str(nested)], check=True)
    (nested / "lib.py").write_text("x = 1\n")
    points = Checkpoints(place.base, place.work, place.sessions, max_file_bytes=1000)
    said = points.before_block(place.host, 1, "python", _snap(place))
    assert said == ["Not checkpointed (over 1000 B): big.bin.",
                    "Not checkpointed (a git repository of its own): vendor."]
    (place.work / "small.txt").write_text("t\n")
    assert points.after_block(place.host, 1, _snap(place)) == []
    points.close()
    state = read_history(place.host.log.path).after[1].state
    assert state.skipped == ("big.bin",) and state.nested == ("vendor",)
    blob = subprocess.run(["git", "hash-object", str(place.work / "big.bin")],
                          capture_output=True, text=True).stdout.strip()
    assert not Shadow(place.base, place.work).has(blob)  # not even the first warm-up stored it


def test_files_vanishing_meanwhile_never_break_a_checkpoint(place):
    stop = threading.Event()

    def churn() -> None:
        n = 0
        while not stop.is_set():
            path = place.work / f"tmp{n % 50}.txt"
            path.write_text("x" * (n % 300))
            (place.work / f"tmp{(n + 25) % 50}.txt").unlink(missing_ok=True)
            n += 1

    thread = threading.Thread(target=churn)
    thread.start()
    points = Checkpoints(place.base, place.work, place.sessions, time_bound=30.0)
    try:
        for n in range(1, 11):
            said = points.before_block(place.host, n, "shell", _snap(place))
            assert all(line.startswith("Not in the checkpoint before block") for line in said), said
    finally:
        stop.set()
        thread.join()
        points.close()
    history = read_history(place.host.log.path)
    assert all(history.before[n].state is not None for n in range(1, 11))


def test_the_users_git_environment_and_repository_are_left_alone(place, monkeypatch):
    work = place.work
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (work / "a.txt").write_text("a\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    (work / "b.txt").write_text("staged\n")
    subprocess.run([*git, "add", "b.txt"], check=True)
    index = (work / ".git" / "index").read_bytes()
    monkeypatch.setenv("GIT_DIR", str(work / ".git"))  # as inside a git hook
    monkeypatch.setenv("GIT_INDEX_FILE", str(work / ".git" / "index"))
    points = Checkpoints(place.base, work, place.sessions)
    assert points.before_block(place.host, 1, "shell", _snap(place)) == []
    (work / "c.txt").write_text("new\n")
    assert points.after_block(place.host, 1, _snap(place)) == []
    points.close()
    assert (work / ".git" / "index").read_bytes() == index
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_INDEX_FILE")
    status = subprocess.run([*git, "status", "--porcelain"], capture_output=True, text=True)
    assert status.stdout.splitlines() == ["A  b.txt", "?? c.txt"]


def test_after_reset_the_new_conversation_keeps_its_own_refs(place):
    from interp.storage.conversations import ConversationStore

    (place.work / "a.txt").write_text("a\n")
    points = Checkpoints(place.base, place.work, place.sessions)
    points.before_block(place.host, 1, "shell", _snap(place))
    first = place.host.log.id
    place.host.log = ConversationStore(place.sessions).create({"model": "m"})  # what /reset does
    points.after_block(place.host, 1, _snap(place))  # unchanged: the same state again
    points.close()
    owners = {name.partition("/")[0] for name in Shadow(place.base, place.work).refs()}
    assert owners == {first, place.host.log.id}  # dropping the first conversation keeps it
    place.host.log.close()
