"""The environment that keeps programs from waiting for a person: nobody can type into a block.

Set for every runner on top of the user's environment (README, "Runners' environment"). Pagers
print and exit, tools that would ask (git for a password, apt, npm, pip, conda) take their
non-interactive path, and git's ssh never asks for a password or a host key.
"""

from __future__ import annotations

NON_INTERACTIVE = {
    "PAGER": "cat", "GIT_PAGER": "cat", "MANPAGER": "cat", "SYSTEMD_PAGER": "cat",
    "GH_PAGER": "cat", "PSQL_PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",  # git: no username or password questions
    "GCM_INTERACTIVE": "never",  # Git Credential Manager
    "GIT_EDITOR": "true",  # a commit without -m stops at once instead of opening an editor
    "DEBIAN_FRONTEND": "noninteractive",
    "npm_config_yes": "true",  # npx installs without asking
    "npm_config_update_notifier": "false",
    "PIP_NO_INPUT": "1",
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    "CONDA_ALWAYS_YES": "true",
}
# Kept when the user set them: a way of their own to reach a server.
DEFAULTS = {"GIT_SSH_COMMAND": "ssh -o BatchMode=yes"}


def apply(env: dict[str, str]) -> None:
    """Add the non-interactive settings to a runner's environment."""
    env.update(NON_INTERACTIVE)
    for name, value in DEFAULTS.items():
        env.setdefault(name, value)
