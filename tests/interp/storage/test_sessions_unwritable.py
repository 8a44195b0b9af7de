"""A conversation file that becomes unwritable mid-task (issue 23): one line naming the file,
the task goes on to its end (the next block runs, the model's answer is shown), status 0."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from fake_openai import FakeOpenAI
from helpers import model_args, run_interp


def _chattr_works(tmp_path) -> bool:
    probe = tmp_path / "probe"
    probe.write_text("x")
    if not shutil.which("chattr"):
        return False
    done = subprocess.run(["chattr", "+i", str(probe)], capture_output=True)
    if done.returncode:
        return False
    subprocess.run(["chattr", "-i", str(probe)], check=True)
    return True


def test_a_session_file_made_immutable_mid_task(interp_env, tmp_path):
    if not _chattr_works(tmp_path):
        pytest.skip("chattr +i needs root and a file system that has it")
    sessions = interp_env["data"] / "interp" / "sessions"
    lock = (f"```bash\nchattr +i {sessions}/*.jsonl && echo LOCKED\n```\n\n"
            "```bash\necho SECOND > second.txt && echo RAN\n```\n")
    try:
        with FakeOpenAI([f"Two steps.\n\n{lock}", "Both done: the file is locked."]) as server:
            done = run_interp(["-y", "-e", "lock then write", *model_args(server)], interp_env)
            requests = server.requests
    finally:
        for path in sessions.glob("*.jsonl"):
            subprocess.run(["chattr", "-i", str(path)], check=False)
    (path,) = sessions.glob("*.jsonl")
    assert done.returncode == 0, done.stderr
    assert "LOCKED" in done.stderr and "RAN" in done.stderr
    assert (interp_env["cwd"] / "second.txt").read_text() == "SECOND\n"
    assert done.stdout.strip() == "Both done: the file is locked."
    flat = "".join(done.stderr.split())  # rich wraps the line, in the path too
    assert "".join(f"cannot save this conversation to {path} any more (Operation not permitted); "
                   "going on without saving it".split()) in flat
    assert flat.count("cannotsavethisconversation") == 1
    assert "unexpected error" not in done.stderr and "Traceback" not in done.stderr
    assert len(requests) == 2 and "RAN" in str(requests[1]["messages"][-1])
    assert "Both done" not in path.read_text()  # nothing written after the failure
