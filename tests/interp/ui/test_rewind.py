"""/rewind and /diff in the real `interp` in a pty, against the fake OpenAI server: blocks in
Python, shell and Node change the folder; the folder goes back byte for byte, modes included,
block by block; the rewind can be undone; the model is told. Waits are hang guards only."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from checkpoint_kit import tree_of
from pty_terminal import fenced, last_user

CSV = b"id,name\r\n1,caf\xe9\r\n2,\xff\xfe\r\n"  # CRLF and bytes that are not UTF-8
REWRITE = "open('data.csv', 'w').write('id,name\\n1,replaced\\n')\nprint('rewrote')"
SHELL = "rm old.txt && mv a.txt b.txt && echo shuffled"
NODE = ("const fs = require('fs');\nfs.mkdirSync('out/sub', {recursive: true});\n"
        "fs.writeFileSync('out/sub/r.json', '{}');\nconsole.log('made out')")


def _seed(work: Path) -> None:
    (work / "data.csv").write_bytes(CSV)
    (work / "old.txt").write_text("old\n")
    (work / "a.txt").write_text("a\n")
    (work / "run.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(work / "run.sh", 0o755)
    (work / "secret.txt").write_text("s\n")
    os.chmod(work / "secret.txt", 0o600)
    os.symlink("/etc/hostname", work / "outside-link")


def _three_blocks(spawn, fake_server, work: Path):
    fake_server.script([fenced("python", REWRITE), "Rewrote it.",
                        fenced("shell", SHELL), "Shuffled.",
                        fenced("javascript", NODE), "Made it.",
                        "Noted."])
    term = spawn("-y")
    for task, done in (("rewrite the csv", "Rewrote it."), ("shuffle", "Shuffled."),
                       ("make a folder", "Made it.")):
        term.task(task)
        term.expect(done)
    return term


def test_rewind_block_by_block_puts_every_file_back_and_can_be_undone(spawn, fake_server,
                                                                      interp_env):
    work = interp_env["cwd"]
    _seed(work)
    start = tree_of(work)
    term = _three_blocks(spawn, fake_server, work)
    assert (work / "out" / "sub" / "r.json").exists() and not (work / "old.txt").exists()
    after_all = tree_of(work)

    term.task("/rewind")
    term.expect(r"1  python .*changed data\.csv")
    term.expect(r"2  shell .*created b\.txt; deleted old\.txt|renamed a\.txt → b\.txt")
    term.expect(r"3  javascript .*created out/sub/r\.json")
    term.expect(r"Rewind to before which block\? \[1-3, Enter cancels\]: ")
    term.line("3")
    term.expect(r"removes out/sub/r\.json")
    term.expect(r"\[f\]iles only, \[b\]oth")
    term.send("f")
    term.expect(r"The folder is back as it was before block 3")
    assert not (work / "out").exists()  # the folder the Node block made is gone

    term.task("/rewind 2")
    term.expect(r"\[f\]iles only")
    term.send("f")
    term.expect(r"back as it was before block 2")
    term.task("/rewind 1")
    term.expect(r"\[f\]iles only")
    term.send("f")
    term.expect(r"back as it was before block 1")
    assert tree_of(work) == start  # bytes, modes, the symlink: all as they were

    term.task("/rewind undo")
    term.expect(r"Go ahead\? \[y\]es")
    term.send("y")
    term.expect(r"back as it was before the last rewind")
    assert (work / "data.csv").read_bytes() == b"id,name\n1,replaced\n"

    term.task("what now?")
    term.expect("Noted.")
    told = last_user(fake_server.requests[-1])
    assert "rewound the working folder" in told and "before the user's previous rewind" in told
    assert term.exit_status() == 0
    assert after_all != start


def test_diff_shows_what_a_block_changed_and_esc_cancels_a_rewind(spawn, fake_server,
                                                                  interp_env):
    work = interp_env["cwd"]
    _seed(work)
    term = _three_blocks(spawn, fake_server, work)
    term.task("/diff 1")
    term.expect(r"^-1,caf")
    term.expect(r"^\+1,replaced")
    term.task("/diff")  # the last block: the Node one
    term.expect(r"new file mode 100644")
    term.expect(r"^\+\{\}")
    before = tree_of(work)
    term.task("/rewind 1")
    term.expect(r"\[f\]iles only")
    term.send("\x1b")
    term.expect("Rewind cancelled: nothing changed.")
    assert tree_of(work) == before
    assert term.exit_status() == 0


def test_rewinding_the_conversation_too_drops_the_reply_and_what_followed(spawn, fake_server,
                                                                          interp_env):
    work = interp_env["cwd"]
    _seed(work)
    term = _three_blocks(spawn, fake_server, work)
    term.task("/rewind 2")
    term.expect(r"\[b\]oth files and conversation")
    term.send("b")
    term.expect("The conversation went back to before that block's reply.")
    term.task("again")
    term.expect("Noted.")
    sent = fake_server.requests[-1]["messages"]
    texts = [str(m.get("content")) for m in sent]
    assert not any("mv a.txt b.txt" in t or "fs.mkdirSync" in t for t in texts)
    assert any("rewrite the csv" in t for t in texts)
    assert "The conversation from that block on was dropped" in texts[-1]
    assert term.exit_status() == 0


def test_a_file_changed_outside_is_shown_and_kept_when_asked(spawn, fake_server, interp_env):
    work = interp_env["cwd"]
    _seed(work)
    term = _three_blocks(spawn, fake_server, work)
    (work / "b.txt").write_text("edited by hand\n")  # after the shell block renamed it
    term.task("/rewind 2")
    term.expect(r"\[f\]iles only")
    term.send("f")
    term.expect(r"Changed outside interp since then: b\.txt")
    term.expect(r"\[o\]verwrite them too, \[k\]eep them as they are")
    term.send("k")
    term.expect(r"kept\s+as they were b\.txt")
    assert (work / "b.txt").read_text() == "edited by hand\n"
    assert (work / "old.txt").read_text() == "old\n" and (work / "a.txt").read_text() == "a\n"
    assert term.exit_status() == 0


def test_the_folders_own_git_repository_is_untouched(spawn, fake_server, interp_env):
    work = interp_env["cwd"]
    _seed(work)
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "data.csv", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    (work / "a.txt").write_text("staged change\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    (work / "old.txt").write_text("unstaged change\n")
    dot_git = tree_of(work / ".git")
    status = subprocess.run([*git, "status", "--porcelain"], capture_output=True,
                            text=True).stdout
    term = _three_blocks(spawn, fake_server, work)
    term.task("/rewind 1")
    term.expect(r"\[f\]iles only")
    term.send("f")
    term.expect(r"back as it was before block 1")
    assert term.exit_status() == 0
    assert tree_of(work / ".git") == dot_git  # index, refs, objects: byte for byte
    assert subprocess.run([*git, "status", "--porcelain"], capture_output=True,
                          text=True).stdout == status
    assert (work / "old.txt").read_text() == "unstaged change\n"
