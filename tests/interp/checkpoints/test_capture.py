"""What a checkpoint leaves out and keeps besides git's tree (interp/checkpoints/capture.py):
the repository's own excludes, interp's skipped folders, big files, exact modes."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from interp.checkpoints.capture import Capturer, State, exclude_text, modes_of, user_excludes
from interp.checkpoints.shadow import Shadow
from interp.core.files import workspace


@pytest.mark.fast
def test_the_repositorys_excludes_apply_and_from_above_only_those_for_any_depth(tmp_path):
    top = tmp_path / "repo"
    (top / ".git" / "info").mkdir(parents=True)
    (top / ".git" / "info" / "exclude").write_text("# comment\n*.tmp\n/only-at-top\nsub/deep\n")
    (top / ".gitignore").write_text("build/\n/dist\n!keep.tmp\n")
    inner = top / "pkg" / "mod"
    inner.mkdir(parents=True)
    (top / "pkg" / ".gitignore").write_text("*.cache\nmod/generated\n")
    assert user_excludes(top) == ["*.tmp", "/only-at-top", "sub/deep"]
    assert user_excludes(inner) == ["*.tmp", "build/", "!keep.tmp", "*.cache"]
    assert user_excludes(tmp_path / "elsewhere") == []


@pytest.mark.fast
def test_a_worktrees_dot_git_file_leads_to_the_common_excludes(tmp_path):
    common = tmp_path / "main" / ".git"
    (common / "info").mkdir(parents=True)
    (common / "info" / "exclude").write_text("*.secret\n")
    (common / "worktrees" / "wt").mkdir(parents=True)
    (common / "worktrees" / "wt" / "commondir").write_text("../..\n")
    work = tmp_path / "wt"
    work.mkdir()
    (work / ".git").write_text(f"gitdir: {common / 'worktrees' / 'wt'}\n")
    assert user_excludes(work) == ["*.secret"]


@pytest.mark.fast
def test_exclude_text_names_big_files_exactly_and_the_data_dir_inside(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / ".cache"))
    sizes = [("big [1]*.csv", (5000, 0)), ("ok.csv", (10, 0)), ("odd \n name", (9999, 0)),
             ("trail ", (6000, 0))]
    text, skipped = exclude_text(str(tmp_path), tmp_path / ".data" / "checkpoints", sizes, 1000)
    lines = text.splitlines()
    assert skipped == ("big [1]*.csv", "trail ")
    assert "/big \\[1\\]\\*.csv" in lines and "/trail\\ " in lines
    assert "/.data/checkpoints/" in lines and "node_modules/" in lines and ".venv/" in lines
    assert "/.data/" in lines and "/.cache/interp/" in lines  # all of interp's data and cache
    assert ".git/" not in lines


@pytest.mark.fast
def test_modes_keep_what_git_would_not_and_states_round_trip(tmp_path):
    for name, mode in (("plain", 0o644), ("also", 0o644), ("tool", 0o755), ("secret", 0o600),
                       ("group", 0o775)):
        (tmp_path / name).write_text(name)
        os.chmod(tmp_path / name, mode)
    os.symlink("plain", tmp_path / "link")
    assert modes_of(workspace.snapshot(tmp_path), {"group"}) == (0o644, 0o755,
                                                                 {"secret": 0o600})
    state = State("e" * 40, {"secret": 0o600}, ("big",), ("gone",), ("vendor",))
    assert State.from_dict(state.to_dict()) == state
    assert State.from_dict({"tree": "not a hash"}) is None
    assert State.from_dict({"tree": "e" * 40, "modes": {"x": 0o600}}).bits("y", "100644") == 0o644


@pytest.mark.fast
def test_a_folder_made_under_umask_077_keeps_no_list_of_modes(tmp_path):
    for i in range(50):
        (tmp_path / f"f{i}").write_text("x")
        os.chmod(tmp_path / f"f{i}", 0o600)
    (tmp_path / "run").write_text("x")
    os.chmod(tmp_path / "run", 0o700)
    (tmp_path / "shared").write_text("x")
    os.chmod(tmp_path / "shared", 0o644)
    plain, exe, modes = modes_of(workspace.snapshot(tmp_path), set())
    assert (plain, exe, modes) == (0o600, 0o700, {"shared": 0o644})
    before = State("e" * 40, modes, plain=plain, exe=exe)
    after = State("e" * 40, {}, plain=0o600, exe=0o700)
    assert before.mode_changes(after) == {"shared"} and after.bits("run", "100755") == 0o700
    moved = State("e" * 40, {}, plain=0o600, exe=0o755)  # chmod 755 run: the usual bits moved
    files = {"run": ("100755", "x" * 40), "f1": ("100644", "y" * 40)}
    assert after.mode_changes(moved, files) == {"run"}


def test_symlinks_are_recorded_as_links_and_never_followed(place, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("outside\n")
    os.symlink(outside, place.work / "out-dir")
    os.symlink(outside / "secret.txt", place.work / "out-file")
    shadow = Shadow(place.base, place.work, index="t")
    state = Capturer(shadow).take(workspace.snapshot(place.work), time.monotonic() + 60)
    entries = shadow.entries(state.tree)
    assert entries.keys() == {"out-dir", "out-file"}
    assert {mode for mode, _ in entries.values()} == {"120000"}
    blobs = shadow.blobs([sha for _, sha in entries.values()])
    assert sorted(blobs.values()) == sorted([os.fsencode(outside),
                                             os.fsencode(outside / "secret.txt")])


def test_a_second_interp_in_the_same_folder_uses_its_own_index(place):
    (place.work / "a.txt").write_text("a\n")
    first, second = (Shadow(place.base, place.work, index=n) for n in ("one", "two"))
    one = Capturer(first).take(None, time.monotonic() + 60)
    assert first.seed.exists() and first.index.exists()
    two = Capturer(second).take(None, time.monotonic() + 60)  # seeded from the first's
    assert one.tree == two.tree and first.index != second.index
    listed = subprocess.run(["git", f"--git-dir={first.dir}", "ls-files"], capture_output=True,
                            text=True, env={**os.environ, "GIT_INDEX_FILE": str(second.index)})
    assert listed.stdout.split() == ["a.txt"]
