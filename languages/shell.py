"""The shell runner: one interactive bash, kept alive between blocks."""

from __future__ import annotations

import shlex
import shutil

from .base import ProcessRunner, RunnerStartError

_SETUP = (
    "PS1=; PS2=; PS0=; PROMPT_COMMAND=; unset HISTFILE; set +m +H; "
    "bind 'set enable-bracketed-paste off' 2>/dev/null\n"
)
_STATUS = "printf '__INTERP_%s__{{\"exit_code\":%d}}\\n' {token} \"$?\""


class ShellRunner(ProcessRunner):
    """Runs shell blocks with bash; cd, exports, functions and aliases persist."""

    name = "shell"
    aliases = ("bash", "sh", "zsh")
    suffix = ".sh"

    def argv(self) -> list[str]:
        """An interactive bash without startup files, line editing or job control."""
        bash = shutil.which("bash", path=self._environment().get("PATH"))
        if bash is None:
            raise RunnerStartError("bash was not found on PATH")
        return [bash, "--noprofile", "--norc", "--noediting", "-i"]

    def child_setup(self) -> None:
        """bash reads its commands from the terminal itself; each block gets /dev/null."""

    def setup_command(self) -> bytes:
        """Silence the prompts, history expansion and job notices."""
        return _SETUP.encode()

    def run_command(self, token: str, path: str) -> bytes:
        """Source the block with stdin at end-of-file, then print the marker and $?."""
        return f"source {shlex.quote(path)} </dev/null; {_STATUS.format(token=token)}\n".encode()

    def ping_command(self, token: str) -> bytes:
        """Print the marker only."""
        return f"printf '__INTERP_%s__{{}}\\n' {token}\n".encode()
