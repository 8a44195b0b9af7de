"""The slow tier (`pytest -m local_model`): the default model, downloaded and used.

A fresh machine with no key runs `interp`, accepts the local model and its download, and does
a task with it. The "hub" is a real HTTP server on 127.0.0.1 (HF_ENDPOINT) serving the very
file interp's pin names: Qwen2.5-Coder-1.5B-Instruct Q4_K_M as assembled from the package
index, whose sha256 equals the hub's. About 1.1 GB goes over the loopback, so this is slow.
"""

from __future__ import annotations

import os

import pytest

from file_server import FileServer
from interp.models.local.files import DEFAULT_MODEL
from local_fixtures import finish, loose, needs_xllamacpp, servers_for, wait_gone
from pty_terminal import QUESTION

pytestmark = [pytest.mark.local_model, needs_xllamacpp]


def test_fresh_machine_downloads_the_default_and_runs_a_task(local_pty, interp_env,
                                                             qwen15_gguf):
    path = f"/{DEFAULT_MODEL.repo}/resolve/main/{DEFAULT_MODEL.filename}"
    dest = interp_env["cwd"].parent / "cache" / "interp" / "models" / DEFAULT_MODEL.filename
    with FileServer({path: qwen15_gguf}) as server:
        term = local_pty(env={"HF_ENDPOINT": server.base, "INTERP_LOCAL_THREADS": "1",
                                    "INTERP_LOCAL_TEMPERATURE": "0",
                                    "INTERP_LOCAL_CONTEXT": "8192"})
        term.expect(r"Use the local model\? \[Y/n\]")
        term.send("y")
        term.expect(r"Download it now\? \[Y/n\]")
        term.send("y")
        term.expect(loose(f"Downloaded {dest} (sha256 checked)."), guard=600)
    assert dest.stat().st_size == DEFAULT_MODEL.size
    assert not dest.with_name(dest.name + ".part").exists()
    term.prompt()
    term.line("Use Python to compute 123456789 * 987654321 and tell me the result.")
    term.expect(loose(f"Local model {DEFAULT_MODEL.filename} ready: context 8192 tokens"),
                guard=600)
    assert term.expect(QUESTION, guard=600).group(1) == "python"
    term.line("y")
    term.expect("121932631112635269", guard=120)
    # its next reply is up to the model: an answer (the prompt returns) or another block
    term.settle(guard=600)
    assert len(servers_for(dest)) == 1
    term.line("/exit")
    assert finish(term) == 0
    wait_gone(dest)
    assert os.path.getsize(dest) == DEFAULT_MODEL.size  # kept for the next run
