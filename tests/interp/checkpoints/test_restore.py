"""Putting a folder back (interp/checkpoints/restore.py) with real git: byte for byte, modes
and links kept, nothing written through a symlink or outside the folder, conversions of the
user's git config and attributes never applied."""

from __future__ import annotations

import os
import time

from checkpoint_kit import tree_of

from interp.checkpoints.capture import Capturer, State
from interp.checkpoints.restore import apply, make_plan, outside_paths
from interp.checkpoints.shadow import Shadow
from interp.core.files import workspace


def _state(place) -> State:
    shadow = Shadow(place.base, place.work, index="t")
    return Capturer(shadow).take(workspace.snapshot(place.work), time.monotonic() + 60)


def _back_to(place, target: State, outside: set[str] = frozenset()):
    shadow = Shadow(place.base, place.work, index="t")
    plan = make_plan(shadow, target, _state(place), set(outside))
    return plan, apply(shadow, plan)


def test_every_kind_of_change_goes_back_byte_for_byte(place):
    work = place.work
    (work / "data.csv").write_bytes(b"a,b\r\n1,\xff\r\n")
    (work / "tool.sh").write_text("#!/bin/sh\n")
    os.chmod(work / "tool.sh", 0o750)
    (work / "private").write_text("p\n")
    os.chmod(work / "private", 0o600)
    (work / "kind").write_text("a file\n")
    (work / "deep" / "er").mkdir(parents=True)
    (work / "deep" / "er" / "x.txt").write_text("x\n")
    os.symlink("/etc", work / "etc-link")
    start, target = tree_of(work), _state(place)

    (work / "data.csv").write_text("replaced\n")
    os.chmod(work / "tool.sh", 0o644)
    os.chmod(work / "private", 0o644)
    (work / "kind").unlink()
    (work / "kind").mkdir()
    (work / "kind" / "inside.txt").write_text("now a folder\n")
    (work / "deep" / "er" / "x.txt").unlink()
    os.rmdir(work / "deep" / "er")
    os.rmdir(work / "deep")
    (work / "etc-link").unlink()
    os.symlink("/tmp", work / "etc-link")
    (work / "new" / "sub").mkdir(parents=True)
    (work / "new" / "sub" / "n.txt").write_text("n\n")

    plan, applied = _back_to(place, target)
    assert applied.problems == ()
    assert tree_of(work) == start
    assert set(applied.removed) == {"kind/inside.txt", "new/sub/n.txt"}
    assert ("private", 0o600) in plan.chmod


def test_a_parent_that_became_a_symlink_to_elsewhere_is_never_written_through(place, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x.txt").write_text("not yours to touch\n")
    work = place.work
    (work / "d").mkdir()
    (work / "d" / "x.txt").write_text("mine\n")
    (work / "e").mkdir()
    (work / "e" / "y.txt").write_text("mine too\n")
    target = _state(place)
    for name in ("d", "e"):
        for child in (work / name).iterdir():
            child.unlink()
        os.rmdir(work / name)
        os.symlink(outside, work / name)
    (work / ".gitignore").write_text("e\n")  # e, ignored now, is not recorded: not removed

    _, applied = _back_to(place, target)
    assert sorted(os.listdir(outside)) == ["x.txt"]
    assert (outside / "x.txt").read_text() == "not yours to touch\n"
    assert (work / "d" / "x.txt").read_text() == "mine\n" and not (work / "d").is_symlink()
    assert applied.problems == ("e/y.txt: not put back, e is a symlink now",)
    assert (work / "e").is_symlink()


def test_files_over_the_size_bound_and_ignored_files_are_left_alone(place):
    work = place.work
    (work / ".gitignore").write_text("*.log\n")
    (work / "big.bin").write_bytes(b"b" * 3000)
    (work / "run.log").write_text("log 1\n")
    (work / "a.txt").write_text("a\n")
    shadow = Shadow(place.base, work, index="t")
    target = Capturer(shadow, max_file_bytes=1000).take(workspace.snapshot(work),
                                                        time.monotonic() + 60)
    assert target.skipped == ("big.bin",)
    (work / "big.bin").write_bytes(b"small")  # under the bound now: in the next state
    (work / "run.log").write_text("log 2\n")
    (work / "a.txt").write_text("changed\n")
    plan, applied = _back_to(place, target)
    assert (work / "big.bin").read_bytes() == b"small"  # never removed: it was not recorded
    assert (work / "run.log").read_text() == "log 2\n"
    assert (work / "a.txt").read_text() == "a\n"
    assert plan.uncovered == ("big.bin",)


def test_the_users_git_config_and_attributes_change_no_byte(place, tmp_path):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / ".gitconfig").write_text("[core]\n\tautocrlf = true\n[filter \"up\"]\n"
                                     "\tclean = tr a-z A-Z\n\tsmudge = tr a-z A-Z\n")
    work = place.work
    (work / ".gitattributes").write_text("*.txt text eol=crlf filter=up ident\n")
    (work / "a.txt").write_bytes(b"lower $Id$\nline two\n")
    start, target = tree_of(work), _state(place)
    (work / "a.txt").write_bytes(b"gone\r\n")
    _, applied = _back_to(place, target)
    assert applied.problems == () and tree_of(work) == start


def test_outside_paths_are_those_changed_between_blocks(place):
    work = place.work
    (work / "a.txt").write_text("1\n")
    before = _state(place)
    (work / "a.txt").write_text("2\n")  # the block
    after = _state(place)
    (work / "b.txt").write_text("by hand\n")  # between blocks
    os.chmod(work / "a.txt", 0o600)
    now = _state(place)
    shadow = Shadow(place.base, work, index="t")
    assert outside_paths(shadow, [(before, after, True), (after, now, False)]) == {"b.txt",
                                                                                   "a.txt"}
    assert outside_paths(shadow, [(before, after, True)]) == set()
    plan = make_plan(shadow, before, now, {"b.txt"})
    assert plan.outside == ("b.txt",)
    assert plan.keeping({"b.txt"}).paths == ["a.txt"]


def test_every_mode_goes_back_when_the_usual_ones_changed(place):
    work = place.work
    for i in range(5):
        (work / f"f{i}").write_text(f"{i}\n")
        os.chmod(work / f"f{i}", 0o644)
    start, target = tree_of(work), _state(place)
    for i in range(5):
        os.chmod(work / f"f{i}", 0o600)  # chmod -R go-rw: no file is unusual any more
    plan, applied = _back_to(place, target)
    assert len(plan.chmod) == 5 and applied.problems == ()
    assert tree_of(work) == start


def test_interp_data_recorded_before_it_was_left_out_is_never_put_back(tmp_path):
    """interp run in the folder that holds its data (such as the home folder): a state
    recorded with the session log in it must not roll the log back."""
    work, data = tmp_path / "work", tmp_path / "work" / ".local" / "share" / "interp"
    (data / "sessions").mkdir(parents=True)
    log = data / "sessions" / "s.jsonl"
    log.write_text("entry 1\n")
    (work / "a.txt").write_text("a\n")
    shadow = Shadow(data / "checkpoints", work, index="t")
    shadow.open()
    shadow.set_excludes("checkpoints/\n")  # as interp did before: the log recorded
    proc, errors = shadow.start_add()
    proc.wait(timeout=60)
    Shadow.added(proc, errors)
    target = State(shadow.write_tree())
    assert ".local/share/interp/sessions/s.jsonl" in shadow.entries(target.tree)

    log.write_text("entry 1\nentry 2\n")
    (work / "a.txt").write_text("changed\n")
    (data / "sessions" / "t.jsonl").write_text("another\n")
    now = Capturer(shadow).take(workspace.snapshot(work), time.monotonic() + 60)
    plan = make_plan(shadow, target, now, set())
    assert plan.paths == ["a.txt"]
    apply(shadow, plan)
    assert (work / "a.txt").read_text() == "a\n"
    assert log.read_text() == "entry 1\nentry 2\n" and (data / "sessions" / "t.jsonl").exists()
