"""snapshot / changes / describe on real directory trees in tmp_path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from interp.core.files import workspace
from interp.core.files.workspace import Changes, changes, describe, format_size, snapshot

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


def write(path: Path, data: str | bytes = "x") -> Path:
    """Write a file, creating parent directories."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data)
    else:
        path.write_bytes(data)
    return path


def test_create_modify_delete(tmp_path):
    write(tmp_path / "data.csv", "a,b\n1,2\n")
    write(tmp_path / "old.txt")
    write(tmp_path / "sub" / "keep.txt")
    before = snapshot(tmp_path)
    assert before.complete and set(before.files) == {"data.csv", "old.txt", "sub/keep.txt"}
    write(tmp_path / "data.csv", "a,b\n1,2\n3,4\n")
    (tmp_path / "old.txt").unlink()
    write(tmp_path / "out" / "chart.png", b"\0" * 2000)
    write(tmp_path / "out.json", "{}")
    diff = changes(before, snapshot(tmp_path))
    assert diff == Changes(["out.json", "out/chart.png"], ["data.csv"], ["old.txt"], True)


def test_no_changes_is_falsy_and_describes_empty(tmp_path):
    write(tmp_path / "a.txt")
    diff = changes(snapshot(tmp_path), snapshot(tmp_path))
    assert not diff and diff.complete
    assert describe(diff, tmp_path) == ""


def test_mtime_only_change_is_detected(tmp_path):
    path = write(tmp_path / "same.txt", "abc")
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    before = snapshot(tmp_path)
    assert before.files["same.txt"] == (3, 1_000_000_000)
    os.utime(path, ns=(1_000_000_000, 2_000_000_001))
    assert changes(before, snapshot(tmp_path)).modified == ["same.txt"]


def test_skipped_dirs_are_not_scanned(tmp_path):
    for name in sorted(workspace.SKIP_DIRS):
        write(tmp_path / name / "f.txt")
    write(tmp_path / "lib" / "site-packages" / "pkg.py")
    write(tmp_path / "real.txt")
    snap = snapshot(tmp_path)
    assert snap.complete and list(snap.files) == ["real.txt"]
    write(tmp_path / ".git" / "new")
    write(tmp_path / "node_modules" / "x" / "y.js")
    assert not changes(snap, snapshot(tmp_path))


def test_folders_to_skip_are_left_out_where_they_lie_inside(tmp_path):
    data = tmp_path / ".local" / "share" / "interp"
    write(data / "sessions" / "s.jsonl")
    write(tmp_path / "real.txt")
    skip = (str(data), str(tmp_path), str(tmp_path.parent / "elsewhere"))
    snap = snapshot(tmp_path, skip=skip)  # the root itself and folders outside: no effect
    assert snap.complete and sorted(snap.files) == ["real.txt"]
    write(data / "sessions" / "s.jsonl", "more")
    assert not changes(snap, snapshot(tmp_path, skip=skip))


def test_symlinks_are_not_followed(tmp_path):
    outside = tmp_path / "outside"
    write(outside / "secret.txt")
    root = tmp_path / "root"
    write(root / "a.txt")
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    (root / "linkfile").symlink_to(root / "a.txt")
    assert list(snapshot(root).files) == ["a.txt"]


def test_depth_bound(tmp_path):
    write(tmp_path / "top.txt")
    write(tmp_path / "a" / "one.txt")
    write(tmp_path / "a" / "b" / "two.txt")
    assert set(snapshot(tmp_path, max_depth=0).files) == {"top.txt"}
    shallow = snapshot(tmp_path, max_depth=1)
    assert set(shallow.files) == {"top.txt", "a/one.txt"} and not shallow.complete
    full = snapshot(tmp_path, max_depth=2)
    assert full.complete and "a/b/two.txt" in full.files


def test_depth_bound_reports_no_phantom_changes_below_it(tmp_path):
    write(tmp_path / "a" / "b" / "deep.txt")
    before = snapshot(tmp_path, max_depth=1)
    write(tmp_path / "a" / "b" / "new.txt")
    write(tmp_path / "a" / "shallow.txt")
    diff = changes(before, snapshot(tmp_path, max_depth=1))
    assert diff.created == ["a/shallow.txt"] and not diff.complete
    assert describe(diff, tmp_path).endswith(workspace.INCOMPLETE_NOTE)


def test_entry_bound(tmp_path):
    for i in range(30):
        write(tmp_path / f"f{i:02}.txt")
    snap = snapshot(tmp_path, max_entries=10)
    assert len(snap.files) == 10 and not snap.complete
    exact = snapshot(tmp_path, max_entries=30)
    assert len(exact.files) == 30 and exact.complete


def test_entry_bound_reports_only_what_both_snapshots_could_see(tmp_path):
    for i in range(5):
        write(tmp_path / "big" / f"f{i}.txt")
    write(tmp_path / "a.txt")
    before = snapshot(tmp_path, max_entries=4)  # root (2 entries) read in full, "big" partly
    assert "" in before.listed and "big" not in before.listed
    write(tmp_path / "b.txt")
    for i in range(5, 9):
        write(tmp_path / "big" / f"f{i}.txt")
    after = snapshot(tmp_path, max_entries=4)
    diff = changes(before, after)
    assert diff.created == ["b.txt"] and diff.deleted == [] and not diff.complete


def test_permission_denied_subdir_does_not_raise(tmp_path, monkeypatch):
    write(tmp_path / "ok.txt")
    write(tmp_path / "locked" / "hidden.txt")
    real = os.scandir

    def scandir(path):
        if os.path.basename(path) == "locked":
            raise PermissionError(13, "Permission denied", path)
        return real(path)

    monkeypatch.setattr(workspace.os, "scandir", scandir)
    snap = snapshot(tmp_path)
    assert list(snap.files) == ["ok.txt"] and not snap.complete
    write(tmp_path / "locked" / "new.txt")
    assert changes(snap, snapshot(tmp_path)).created == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root ignores directory permissions")
def test_permission_denied_subdir_real_chmod(tmp_path):
    write(tmp_path / "ok.txt")
    locked = write(tmp_path / "locked" / "hidden.txt").parent
    locked.chmod(0)
    try:
        snap = snapshot(tmp_path)
    finally:
        locked.chmod(0o755)
    assert list(snap.files) == ["ok.txt"] and not snap.complete


def test_files_vanishing_mid_scan(tmp_path, monkeypatch):
    write(tmp_path / "a.txt")
    write(tmp_path / "gone.txt")
    real = os.scandir

    def scandir(path):
        with real(path) as it:
            entries = list(it)
        (tmp_path / "gone.txt").unlink(missing_ok=True)
        return _Entries(entries)

    monkeypatch.setattr(workspace.os, "scandir", scandir)
    snap = snapshot(tmp_path)
    assert list(snap.files) == ["a.txt"] and snap.complete


class _Entries(list):
    """A list usable as the context manager os.scandir returns."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_missing_root_is_empty_and_incomplete(tmp_path):
    snap = snapshot(tmp_path / "nope")
    assert snap.files == {} and not snap.complete
    assert not changes(snap, snap)


def test_describe(tmp_path):
    write(tmp_path / "out.json", b"x" * 1229)
    write(tmp_path / "chart.png", b"x" * (18 * 1024))
    diff = Changes(["chart.png", "out.json"], ["data.csv"], ["old.txt"], True)
    assert describe(diff, tmp_path) == ("Files created: chart.png (18 KiB), out.json (1.2 KiB, "
                                        "not valid JSON); modified: data.csv; deleted: old.txt")


def test_a_created_table_is_described_by_its_rows_and_columns(tmp_path):
    """Qwen2.5-Coder-1.5B's pivot on the task benchmark (2026-11-27) took the dates as columns,
    and its fill left a sensor's cells empty; the report said only "pivot.csv (1.9 KiB)"."""
    dates = [f"2024-01-{d:02}" for d in range(1, 13)]
    write(tmp_path / "pivot.csv", "region," + ",".join(dates) + "\n" +
          "".join(f"{r}," + ",".join("1" for _ in dates) + "\n" for r in ("East", "North")))
    write(tmp_path / "filled.csv", "sensor,temperature\nS1,20.5\nS3,\nS3,\n")
    write(tmp_path / "semi.tsv", "a\tb\n1\t2\n")
    text = describe(Changes(["filled.csv", "pivot.csv", "semi.tsv"], [], [], True), tmp_path)
    assert text == ("Files created: filled.csv (35 B, 3 rows × 2 columns: sensor, temperature; "
                    "empty cells: temperature 2), pivot.csv (198 B, 2 rows × 13 columns: region, "
                    "2024-01-01, 2024-01-02, 2024-01-03, 2024-01-04, 2024-01-05, 2024-01-06, "
                    "2024-01-07, …), semi.tsv (8 B, 1 row × 2 columns: a, b)")


def test_written_json_and_workbooks_are_described(tmp_path):
    """Qwen2.5-Coder-1.5B's inventory.json (task benchmark, 2026-11-27) held every quantity and
    price as text, and its orders.xlsx had the sheet Sheet1 where Orders was asked; the report
    named only their sizes, and the model said it was done."""
    import json
    import openpyxl
    rows = [{"sku": "SKU-300", "quantity": "437", "price": "39.49"},
            {"sku": "SKU-301", "quantity": "166", "price": 6.4}]
    write(tmp_path / "inventory.json", json.dumps(rows))
    write(tmp_path / "totals.json", json.dumps({"a": 1}))
    book = openpyxl.Workbook()
    book.create_sheet("2024")
    book.save(tmp_path / "orders.xlsx")
    text = describe(Changes(["inventory.json", "orders.xlsx"], ["totals.json"], [], True),
                    tmp_path)
    size = workspace.format_size((tmp_path / "orders.xlsx").stat().st_size)
    assert text == ("Files created: inventory.json (110 B, array of 2 items; first item: object "
                    "(keys: sku, quantity, price); numbers written as text in quantity, price), "
                    f"orders.xlsx ({size}, sheets (2): Sheet, 2024); modified: totals.json "
                    "(8 B, object with 1 key: \"a\")")
    one = openpyxl.Workbook()
    one.active.title = "Orders"
    one.save(tmp_path / "one.xlsx")
    assert "sheet Orders)" in describe(Changes(["one.xlsx"], [], [], True), tmp_path)


def test_the_first_three_small_tables_are_described(tmp_path):
    write(tmp_path / "nul.csv", b"a,b\n\x00\x00\n")
    write(tmp_path / "empty.csv", "")
    write(tmp_path / "big.csv", "a\n" + "1\n" * (1024 * 1024 + 1))
    write(tmp_path / "index.csv", ",a\n0,1\n")
    names = ["a.csv", "big.csv", "empty.csv", "index.csv", "nul.csv"]
    write(tmp_path / "a.csv", "x,y\n1,2\n")
    text = describe(Changes(names, [], [], True), tmp_path)
    assert text == ("Files created: a.csv (8 B, 1 row × 2 columns: x, y), big.csv (2.0 MiB), "
                    "empty.csv (0 B, empty), index.csv (7 B), nul.csv (7 B)")  # the first three
    only = describe(Changes(["index.csv", "nul.csv"], [], [], True), tmp_path)
    assert only.startswith("Files created: index.csv (7 B, 1 row × 2 columns: (no name), a), "
                           "nul.csv (7 B")


def test_describe_limit_and_incomplete(tmp_path):
    created = [f"f{i:02}.txt" for i in range(40)]
    diff = Changes(created, ["m.txt", "n.txt"], [], False)
    text = describe(diff, tmp_path, limit=3)
    assert text.startswith("Files created: f00.txt, f01.txt, f02.txt, … and 37 more; ")
    assert "modified: 2 files" in text and text.endswith(workspace.INCOMPLETE_NOTE)


def test_describe_escapes_control_characters(tmp_path):
    text = describe(Changes([], ["evil\x1b]0;x\x07.txt"], [], True), tmp_path)
    assert "\x1b" not in text and "\x07" not in text and "evil\\x1b]0;x\\x07.txt" in text


def test_format_size():
    assert format_size(512) == "512 B"
    assert format_size(1229) == "1.2 KiB"
    assert format_size(18 * 1024) == "18 KiB"
    assert format_size(3 * 1024 * 1024 + 400 * 1024) == "3.4 MiB"


def test_same_as_sees_a_mode_or_link_change_that_files_alone_miss(tmp_path):
    (tmp_path / "a.txt").write_text("a")
    os.symlink("a.txt", tmp_path / "link")
    first = snapshot(tmp_path)
    assert first.same_as(snapshot(tmp_path))
    os.chmod(tmp_path / "a.txt", 0o600)
    second = snapshot(tmp_path)
    assert second.files == first.files and not second.same_as(first)
    (tmp_path / "link").unlink()
    os.symlink("elsewhere", tmp_path / "link")
    assert not snapshot(tmp_path).same_as(second)
    assert not snapshot(tmp_path, max_entries=1).same_as(snapshot(tmp_path, max_entries=1))


@pytest.mark.fast
def test_a_table_of_numbers_without_a_header_row_is_described_so(tmp_path):
    """Qwen2.5-Coder-1.5B on the matrices task (tmux, 2026-11-28): np.savetxt wrote the
    inverse, and the Files line read "3 rows × 4 columns: -1.583333333333333703e+00, ..."."""
    from interp.core.files.file_formats import table_shape
    path = tmp_path / "inverse.csv"
    path.write_text("-1.5e+00,2.0e+00\n3.0e+00,\n")
    assert table_shape(path, ".csv") == ("2 rows × 2 columns of numbers, no header row; "
                                         "empty cells: column 2 1")
    path.write_text("2023,2024\n100,200\n")  # years as column names stay a header
    assert table_shape(path, ".csv") == "1 row × 2 columns: 2023, 2024"


@pytest.mark.fast
def test_a_permission_only_change_is_a_modification(tmp_path):
    (tmp_path / "run.sh").write_text("echo hi\n")
    before = snapshot(tmp_path)
    os.chmod(tmp_path / "run.sh", 0o700)
    assert changes(before, snapshot(tmp_path)).modified == ["run.sh"]


@pytest.mark.fast
def test_files_to_skip_are_left_out_like_folders(tmp_path):
    (tmp_path / "out.json").write_text("{")
    (tmp_path / "kept.txt").write_text("k")
    snap = snapshot(tmp_path, skip=(str(tmp_path / "out.json"),))
    assert list(snap.files) == ["kept.txt"] and "out.json" not in snap.stamps
