"""Files a task names, described to the model as /file would."""

from __future__ import annotations

import os

import pytest

from interp.core.files.mentions import MAX_MENTIONS, mentioned_files, mentioned_folders, unwritten_files


@pytest.fixture
def folder(tmp_path):
    for name in ("sales.csv", "report.py", "data/orders.json", ".env", "api_keys.txt",
                 "server.pem", "notes.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    os.mkfifo(tmp_path / "pipe.csv")
    (tmp_path / "outside.csv").write_text("x\n")
    return tmp_path


def names(paths, root):
    return [str(p.relative_to(root)) for p in paths]


def test_names_in_order_each_once(folder):
    task = "Sum units in sales.csv, fix report.py and read data/orders.json; then sales.csv again."
    assert names(mentioned_files(task, folder), folder) == ["sales.csv", "report.py",
                                                            "data/orders.json"]


def test_what_is_never_described(folder):
    task = ("Use .env, api_keys.txt, server.pem, pipe.csv, missing.csv, ../outside.csv, "
            "https://example.com/page.html and the folder data.")
    assert mentioned_files(task, folder / "data") == []
    assert mentioned_files(task, folder) == []


def test_at_most_a_few(folder):
    for n in range(5):
        (folder / f"f{n}.csv").write_text("a\n")
    found = mentioned_files(" ".join(f"f{n}.csv" for n in range(5)), folder)
    assert len(found) == MAX_MENTIONS


def test_punctuation_and_quotes_around_a_name(folder):
    task = 'What is in "notes.txt"? And (sales.csv), `report.py`.'
    assert names(mentioned_files(task, folder), folder) == ["notes.txt", "sales.csv", "report.py"]


def test_folders_named_in_the_task(folder):
    for name in ("photos", "logs", ".git", "a", "b"):
        (folder / name).mkdir()
    assert mentioned_folders("Rename every .jpeg file in the photos folder to .jpg", folder) == \
        ["photos"]
    assert mentioned_folders("count lines in logs/ and data/orders.json; logs again", folder) == \
        ["logs"]  # data/orders.json is a file's path, not the folder
    assert mentioned_folders("look in .git, a, b, logs and photos", folder) == ["a", "b", "logs"]
    assert mentioned_folders("What is the capital of France?", folder) == []


def test_files_the_task_names_that_do_not_exist_yet(folder):
    task = ("Turn sales.csv into sales.json and out/sum.csv with math.floor and df.head; save "
            "notes.txt, .hidden.csv, ../up.csv and sales.json again, then a.csv and b.csv")
    assert unwritten_files(task, folder) == ["sales.json", "out/sum.csv", "a.csv"]
    # Qwen2.5-Coder-1.5B was asked for "Node.js and wordfreq.js" (2026-11-27)
    assert unwritten_files("Write a Node.js script wordfreq.js", folder) == ["wordfreq.js"]


def test_the_last_word_of_a_file_name_with_spaces_is_not_a_file_to_write(tmp_path):
    (tmp_path / "city temps.csv").write_text("city,temp\n")
    assert unwritten_files("Which city in city temps.csv is warmest? Save it to best.csv",
                           tmp_path) == ["best.csv"]


def test_a_file_name_with_spaces_is_described(tmp_path):
    """"The data is in city temps 2016.csv": the name is the words the task writes right up
    to the extension, as the folder's file is named; a file its last word names alone, or a
    longer name the task does not write, is not taken for it."""
    for name in ("city temps 2016.csv", "old city temps 2016.csv", "2016.csv.bak"):
        (tmp_path / name).write_text("city,temp\n")
    assert names(mentioned_files("The data is in city temps 2016.csv.", tmp_path), tmp_path) \
        == ["city temps 2016.csv"]
    assert names(mentioned_files('Read "old city temps 2016.csv"', tmp_path), tmp_path) == \
        ["old city temps 2016.csv"]
    assert mentioned_files("Compare it with 2016.csv", tmp_path) == []
    (tmp_path / "2016.csv").write_text("x\n")  # a file of that name is the one it names
    assert names(mentioned_files("Compare it with 2016.csv", tmp_path), tmp_path) == ["2016.csv"]
