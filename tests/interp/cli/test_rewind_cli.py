"""`interp rewind` and checkpoints through the real `interp` executable, against the fake
OpenAI server: blocks in Python, shell, Node and a local Jupyter kernel; --list, --diff,
--to (refused without --force when a file changed outside), --undo, --conversation; the
model told on --resume; checkpoints turned off; bad data dirs and folders. Timeouts are hang
guards only."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import time
from pathlib import Path

import pytest

from fake_openai import Reply
from helpers import HANG_GUARD, interp_cmd, model_args, run_interp, write_config
from checkpoint_kit import tree_of
from pty_terminal import fenced, last_user

CSV = b"id,name\r\n1,caf\xe9\r\n"
REWRITE = "open('data.csv', 'w').write('id,name\\n1,replaced\\n')\nprint('rewrote')"
SHELL = "rm old.txt && mv a.txt b.txt && chmod 700 run.sh && echo shuffled"
NODE = ("const fs = require('fs');\nfs.mkdirSync('out/sub', {recursive: true});\n"
        "fs.writeFileSync('out/sub/r.json', '{}');\nconsole.log('made out')")


def _seed(work: Path) -> None:
    (work / "data.csv").write_bytes(CSV)
    (work / "old.txt").write_text("old\n")
    (work / "a.txt").write_text("a\n")
    (work / "run.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(work / "run.sh", 0o755)
    os.symlink("../..", work / "up")  # points outside the folder: recorded, never followed


def _three_blocks(fake_server, interp_env, *extra: str):
    fake_server.script([fenced("python", REWRITE), fenced("shell", SHELL),
                        fenced("javascript", NODE), "Done."])
    return run_interp(model_args(fake_server) + ["-y", *extra, "-e", "change things"],
                      interp_env)


def _rewind(interp_env, *args: str):
    return run_interp(["rewind", *args], interp_env)


def _session_lines(interp_env) -> list[dict]:
    files = list((interp_env["data"] / "interp" / "sessions").glob("*.jsonl"))
    return [json.loads(line) for f in files for line in f.read_text().splitlines()]


def test_list_diff_refuse_force_undo_and_the_model_is_told(fake_server, interp_env):
    work = interp_env["cwd"]
    _seed(work)
    start = tree_of(work)
    proc = _three_blocks(fake_server, interp_env)
    assert proc.returncode == 0, proc.stderr
    assert (work / "out" / "sub" / "r.json").exists()

    listed = _rewind(interp_env, "--list")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert "changed data.csv" in lines[1] and lines[1].split()[:2] == ["1", "python"]
    assert "deleted old.txt" in lines[2] and "b.txt" in lines[2] and "run.sh" in lines[2]
    assert "created out/sub/r.json" in lines[3]
    diff = subprocess.run(interp_cmd() + ["rewind", "--diff", "1"], capture_output=True,
                          env=interp_env["env"], cwd=work, timeout=60)
    assert diff.returncode == 0 and b"\n+1,replaced\n" in diff.stdout
    assert b"\n-1,caf\xe9\r\n" in diff.stdout  # the file's own bytes

    (work / "b.txt").write_text("edited outside\n")
    changed = tree_of(work)
    refused = _rewind(interp_env, "--to", "2")
    assert refused.returncode == 1
    assert "refused, nothing was changed" in refused.stderr and "b.txt" in refused.stderr
    assert tree_of(work) == changed

    forced = _rewind(interp_env, "--to", "2", "--force")
    assert forced.returncode == 0, forced.stderr
    assert not (work / "b.txt").exists() and not (work / "out").exists()
    assert stat.S_IMODE(os.stat(work / "run.sh").st_mode) == 0o755
    back = _rewind(interp_env, "--to", "1")
    assert back.returncode == 0, back.stderr
    assert tree_of(work) == start  # byte for byte, modes and the link as they were

    undone = _rewind(interp_env, "--undo")
    assert undone.returncode == 0, undone.stderr
    assert (work / "data.csv").read_bytes() == b"id,name\n1,replaced\n"

    fake_server.script(["Noted."])
    resumed = run_interp(model_args(fake_server) + ["-y", "--resume", "-e", "what now"],
                         interp_env)
    assert resumed.returncode == 0, resumed.stderr
    told = last_user(fake_server.requests[-1])
    assert "rewound the working folder" in told and "put back: a.txt" in told
    assert told.rstrip().endswith("what now")


def test_rewinding_the_conversation_too(fake_server, interp_env):
    work = interp_env["cwd"]
    _seed(work)
    assert _three_blocks(fake_server, interp_env).returncode == 0
    proc = _rewind(interp_env, "--to", "2", "--conversation")
    assert proc.returncode == 0, proc.stderr
    assert "The conversation went back to before block 2's reply." in proc.stdout
    fake_server.script(["Noted."])
    assert run_interp(model_args(fake_server) + ["-y", "--resume", "-e", "again"],
                      interp_env).returncode == 0
    sent = [str(m.get("content")) for m in fake_server.requests[-1]["messages"]]
    assert any("rewrote" in t for t in sent)  # block 1's report is kept
    assert not any("mv a.txt b.txt" in t or "made out" in t for t in sent)
    assert "The conversation from that block on was dropped" in sent[-1]


def test_bad_arguments_are_one_line_and_status_2(fake_server, interp_env):
    none = _rewind(interp_env, "--list")
    assert none.returncode == 2 and "no saved conversation" in none.stderr
    _seed(interp_env["cwd"])
    assert _three_blocks(fake_server, interp_env).returncode == 0
    for args, text in ((("--to", "9"), "block 9 is not a block of this conversation"),
                       (("--to", "1", "--diff", "1"), "use one of --to, --diff and --undo"),
                       (("--undo",), "there is no rewind to undo"),
                       (("--conversation",), "--conversation goes with --to N")):
        proc = _rewind(interp_env, *args)
        assert proc.returncode == 2 and text in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_with_no_conversation_it_speaks_of_rewind_and_how_to_pick_one(fake_server, interp_env):
    none = _rewind(interp_env)
    assert none.returncode == 2
    assert none.stderr == "interp rewind: there is no saved conversation to rewind yet.\n"
    _seed(interp_env["cwd"])
    assert _three_blocks(fake_server, interp_env).returncode == 0
    elsewhere = interp_env["cwd"] / "sub"
    elsewhere.mkdir()
    proc = subprocess.run(interp_cmd() + ["rewind", "--to", "1"], capture_output=True, text=True,
                          env=interp_env["env"], cwd=elsewhere, timeout=60)
    assert proc.returncode == 2 and proc.stderr.startswith(
        f"interp rewind: no saved conversation was started in this directory ({elsewhere})")
    assert "`interp rewind ID` rewinds one" in proc.stderr and "--resume" not in proc.stderr


def test_a_conversation_open_in_another_interp_is_refused_in_one_line(fake_server, interp_env):
    work = interp_env["cwd"]
    _seed(work)
    assert _three_blocks(fake_server, interp_env).returncode == 0
    (sid,) = [p.stem for p in (interp_env["data"] / "interp" / "sessions").glob("*.jsonl")]
    asked = len(fake_server.requests)
    fake_server.add(Reply(text="Slow answer.", delay=60))  # the holder waits for it meanwhile
    holder = subprocess.Popen(interp_cmd() + ["--resume", sid, "-y", "-e", "more",
                                              *model_args(fake_server)],
                              env=interp_env["env"], cwd=work, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + HANG_GUARD
        while len(fake_server.requests) == asked:  # the holder has the conversation open
            assert time.monotonic() < end, "the holder never asked the model"
            time.sleep(0.05)
        before = tree_of(work)
        refused = _rewind(interp_env, "--to", "1")
    finally:
        fake_server.stop()  # ends the slow reply: the holder finishes
        holder.wait(timeout=60)
    assert refused.returncode == 1, refused.stderr
    assert refused.stderr == (f"interp rewind: refused, nothing was changed: conversation {sid} "
                              f"is open in another interp process (pid {holder.pid}); finish "
                              f"or quit that one first (one process writes a conversation at "
                              f"a time)\n")
    assert tree_of(work) == before and refused.stdout == ""


def test_a_local_jupyter_kernels_blocks_are_checkpointed(fake_server, interp_env):
    pytest.importorskip("jupyter_client")
    work = interp_env["cwd"]
    (work / "notes.txt").write_text("first\n")
    fake_server.script([fenced("python", "open('notes.txt', 'w').write('second\\n')"), "Done."])
    proc = run_interp(model_args(fake_server) + ["-y", "--runner", "python=jupyter", "-e", "go"],
                      interp_env)
    assert proc.returncode == 0, proc.stderr
    assert (work / "notes.txt").read_text() == "second\n"
    back = _rewind(interp_env, "--to", "1")
    assert back.returncode == 0, back.stderr
    assert (work / "notes.txt").read_text() == "first\n"


@pytest.mark.parametrize("how", ["flag", "env", "config"])
def test_checkpoints_can_be_turned_off(fake_server, interp_env, how):
    _seed(interp_env["cwd"])
    extra = ("--no-checkpoints",) if how == "flag" else ()
    if how == "env":
        interp_env["env"]["INTERP_CHECKPOINTS"] = "0"
    if how == "config":
        write_config(interp_env, "checkpoints = false\n")
    assert _three_blocks(fake_server, interp_env, *extra).returncode == 0
    assert not [r for r in _session_lines(interp_env) if r.get("kind") == "checkpoint"]
    assert not (interp_env["data"] / "interp" / "checkpoints").exists()
    proc = _rewind(interp_env, "--list")
    assert proc.returncode == 2 and "has no checkpoints" in proc.stderr


def test_an_unwritable_data_dir_is_one_line_and_the_blocks_still_run(fake_server, interp_env):
    _seed(interp_env["cwd"])
    (interp_env["data"] / "interp").mkdir(parents=True)
    (interp_env["data"] / "interp" / "checkpoints").write_text("a file, not a folder")
    proc = _three_blocks(fake_server, interp_env)
    assert proc.returncode == 0, proc.stderr
    said = " ".join(proc.stderr.split())  # the notice is wrapped to the terminal's width
    assert said.count("Checkpoints are off: cannot write checkpoints to") == 1
    assert "Traceback" not in proc.stderr
    assert (interp_env["cwd"] / "out" / "sub" / "r.json").exists()  # every block ran


def test_the_home_folder_is_too_large_and_the_blocks_still_run(fake_server, interp_env):
    _seed(interp_env["cwd"])
    interp_env["env"]["HOME"] = str(interp_env["cwd"])
    proc = _three_blocks(fake_server, interp_env)
    assert proc.returncode == 0, proc.stderr
    said = " ".join(proc.stderr.split())  # the notice is wrapped to the terminal's width
    assert said.count("Checkpoints are off:") == 1
    assert "is your home folder (too large to snapshot)" in said
    assert (interp_env["cwd"] / "out" / "sub" / "r.json").exists()


@pytest.mark.fast
def test_the_checkpoints_setting_comes_from_the_flag_environment_or_config(tmp_path):
    from interp.config.settings import ConfigError, load_settings

    config = tmp_path / "config.toml"
    assert load_settings({}, environ={}, config_path=config).checkpoints is True
    config.write_text("checkpoints = false\n")
    assert load_settings({}, environ={}, config_path=config).checkpoints is False
    assert load_settings({}, environ={"INTERP_CHECKPOINTS": "1"},
                         config_path=config).checkpoints is True
    assert load_settings({"checkpoints": False}, environ={"INTERP_CHECKPOINTS": "1"},
                         config_path=config).checkpoints is False
    with pytest.raises(ConfigError, match="INTERP_CHECKPOINTS: expected true/false"):
        load_settings({}, environ={"INTERP_CHECKPOINTS": "maybe"}, config_path=config)


def test_interp_run_where_its_data_lies_records_and_rewinds_only_the_users_files(
        fake_server, interp_env):
    """As when interp runs in the home folder: the session log is neither listed, nor
    "changed outside" (refusing the rewind), nor rolled back by it."""
    work = interp_env["cwd"]
    data = work / ".local" / "share"
    interp_env["env"]["XDG_DATA_HOME"] = str(data)
    fake_server.script([fenced("python", "open('a.txt', 'w').write('a')"),
                        fenced("python", "open('b.txt', 'w').write('b')"), "Done."])
    proc = run_interp(model_args(fake_server) + ["-y", "-e", "write two files"], interp_env)
    assert proc.returncode == 0, proc.stderr
    (log,) = (data / "interp" / "sessions").glob("*.jsonl")
    before = log.read_text()

    listed = _rewind(interp_env, "--list")
    assert listed.returncode == 0, listed.stderr
    assert ".local" not in listed.stdout and "created b.txt" in listed.stdout
    back = _rewind(interp_env, "--to", "1")
    assert back.returncode == 0, back.stderr
    assert not (work / "a.txt").exists() and not (work / "b.txt").exists()
    assert log.read_text().startswith(before)  # nothing lost: the rewind is added to it


def test_the_files_line_names_a_chmod_and_leaves_out_interps_own_output(fake_server, interp_env):
    work = interp_env["cwd"]
    _seed(work)
    fake_server.script([fenced("shell", "chmod 700 run.sh && echo hi > made.txt && echo made it"),
                        "Done."])  # its output goes to out.json while it runs
    with open(work / "out.json", "w") as out, open(work / "err.log", "w") as err:
        proc = subprocess.run(interp_cmd() + model_args(fake_server) + ["-y", "--json", "-e",
                                                                         "make it private"],
                              stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                              env=interp_env["env"], cwd=work, timeout=120)
    assert proc.returncode == 0, (work / "err.log").read_text()
    told = fake_server.requests[1]["messages"][-1]["content"]
    assert "Files created: made.txt (3 B); modified: run.sh (18 B)\n" in told
    events = [json.loads(line) for line in (work / "out.json").read_text().splitlines()]
    files = next(e for e in events if e["type"] == "block.files")
    assert (files["created"], files["modified"]) == (["made.txt"], ["run.sh"])
    assert "out.json" not in told and "err.log" not in told
    listed = _rewind(interp_env, "--list")
    assert "out.json" not in listed.stdout and "err.log" not in listed.stdout
