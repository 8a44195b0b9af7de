"""fixed_folder: the same path on every run, a random one when that path is taken."""

import tempfile

import pytest

from interp.eval.folders import fixed_folder


@pytest.mark.fast
def test_runs_one_after_another_get_the_same_path_and_it_is_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    seen = []
    for _ in range(2):
        with fixed_folder("eval-self-HumanEval/0") as folder:
            (folder / "x.py").write_text("print(1)")
            seen.append(folder)
    assert seen == [tmp_path / "interp-eval-self-HumanEval-0"] * 2
    assert list(tmp_path.iterdir()) == []


@pytest.mark.fast
def test_a_second_run_at_once_gets_its_own_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with fixed_folder("task-a") as first, fixed_folder("task-a") as second:
        assert first == tmp_path / "interp-task-a"
        assert second != first and second.name.startswith("interp-task-a-") and second.is_dir()
    assert list(tmp_path.iterdir()) == []


def test_a_folder_left_by_a_killed_run_is_taken_over(tmp_path, monkeypatch):
    """A run killed mid-task leaves its folder; the next run gets the same path again (the
    prompt holds it), not a random one. One whose owner still runs is left alone."""
    import subprocess
    import sys

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    left = tmp_path / "interp-task-a"
    (left / "work").mkdir(parents=True)
    (tmp_path / "interp-task-a.owner").write_text(gone)
    with fixed_folder("task-a") as folder:
        assert folder == left and not (folder / "work").exists()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        left.mkdir()
        (tmp_path / "interp-task-a.owner").write_text(str(live.pid))
        with fixed_folder("task-a") as folder:
            assert folder != left and left.is_dir()
        assert (tmp_path / "interp-task-a.owner").read_text() == str(live.pid)
    finally:
        live.kill()
        live.wait()
