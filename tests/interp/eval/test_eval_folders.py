"""fixed_folder: the same path on every run, a random one when that path is taken."""

import tempfile

import pytest

from interp.eval.folders import fixed_folder

pytestmark = pytest.mark.fast


def test_runs_one_after_another_get_the_same_path_and_it_is_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    seen = []
    for _ in range(2):
        with fixed_folder("eval-self-HumanEval/0") as folder:
            (folder / "x.py").write_text("print(1)")
            seen.append(folder)
    assert seen == [tmp_path / "interp-eval-self-HumanEval-0"] * 2
    assert list(tmp_path.iterdir()) == []


def test_a_second_run_at_once_gets_its_own_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with fixed_folder("task-a") as first, fixed_folder("task-a") as second:
        assert first == tmp_path / "interp-task-a"
        assert second != first and second.name.startswith("interp-task-a-") and second.is_dir()
    assert list(tmp_path.iterdir()) == []
