"""Leaving interp while litellm is still being imported in the background must be clean: the
real interp in a pty, a provider that needs litellm, /exit at the first prompt."""

from __future__ import annotations

import pexpect

from anthropic_server import AnthropicServer
from helpers import interp_cmd
from pty_terminal import Term


def test_exit_at_once_while_litellm_loads_is_clean(interp_env):
    with AnthropicServer() as server:
        cmd = interp_cmd() + ["--model", "anthropic/claude-sonnet-4-5", "--api-base",
                              server.api_base, "--api-key", "sk-test-123456"]
        env = dict(interp_env["env"], TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
        child = pexpect.spawn(cmd[0], cmd[1:], env=env, cwd=str(interp_env["cwd"]),
                              dimensions=(40, 120), encoding="utf-8", timeout=30)
        term = Term(child)
        try:
            term.prompt()
            term.line("/exit")  # litellm's import (seconds) is still under way
            child.expect(pexpect.EOF, timeout=120)
            child.close()
            assert child.exitstatus == 0, (child.exitstatus, child.signalstatus)
            assert "Fatal Python error" not in child.before and "Segmentation" not in child.before
        finally:
            if child.isalive():
                child.close(force=True)
