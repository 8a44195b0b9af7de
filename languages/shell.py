"""The shell runner: one interactive bash, kept alive between blocks.

bash reads its commands from the runner's pipe on standard input; each block is sourced with
standard input at end-of-file. A block's own `set -e` (and -u, -o pipefail, ...) applies to
that block only: the block is sourced where bash ignores errexit (the left side of `||`), so
no failure can make bash itself exit, and an ERR trap (set by the block's file) stops
the block at its first failing command while errexit is set (`return` from the sourced file,
or `exit` from a subshell). The block's text is one brace group, so an error that aborts a
command (an unset variable under `set -u`, a bad substitution) ends the block, as it would
end a script. Afterwards every `set -o` option goes back to the shell's own setting.
An explicit `exit` still ends bash: that is reported and the runner restarts.
"""

from __future__ import annotations

import shlex
import shutil
from dataclasses import dataclass

from .process.runner import ProcessRunner
from .process.spawn import RunnerStartError
from .python import python_first
from .shell_console import CONSOLE_NOTE, console_commands

# A failing command while errexit is set: leave the subshell, or stop the block (from inside a
# function too: each caller's failure comes back here until the sourced file returns). Set in
# the block's file: bash hides an outer ERR trap from a file sourced on the left of `||`.
# Short, as bash parses it each time it is set; traced (set -x) to a closed standard error.
_ERR_TRAP = "{ __interp_err $? || return $__interp_s; } 2>&-"
_FUNCTIONS = r"""
__interp_err() {
  __interp_s=$1
  if [[ $- == *e* || -n ${__interp_stop-} ]]; then
    if (( BASH_SUBSHELL )); then exit "$__interp_s"; fi
    __interp_stop=${__interp_stop:-$__interp_s}; return 1
  fi
}
__interp_end() {
  set +xv
  [[ $SHELLOPTS == "${__interp_base-}" ]] || __interp_restore
  printf '__INTERP_%s__{"exit_code":%d,"bg":%d%s%s%s}\n' "$1" "${__interp_st:-0}" "${!:-0}" \
    "${__interp_stop:+,\"stopped\":true}" "${__interp_reset-}" "${__interp_eof:+,\"eof\":true}"
  __interp_st= __interp_stop= __interp_reset= __interp_eof=
}
read() { builtin read "$@" || { __interp_read_end $? "$@"; return; } 2>&-; }
__interp_read_end() {
  local OPTIND=1 OPTARG __o __s=$1; shift
  while getopts :ersa:d:i:n:N:p:t:u: __o; do [[ $__o == u ]] && return "$__s"; done
  (( __s != 1 )) || [[ ! ( /dev/stdin -ef /dev/null || -t 0 ) ]] || __interp_eof=1
  return "$__s"
}
__interp_restore() {
  local IFS=: __o; __interp_reset=
  for __o in $SHELLOPTS; do
    [[ :$__interp_base: == *:$__o:* ]] || { set +o "$__o"; __interp_reset+="\"$__o\","; }
  done
  for __o in $__interp_base; do
    [[ :$SHELLOPTS: == *:$__o:* ]] || { set -o "$__o"; [[ $__o == errtrace ]] || __interp_reset+="\"$__o\","; }
  done
  [[ -z $__interp_reset ]] || __interp_reset=",\"reset\":[${__interp_reset%,}]"
}
set -E; __interp_base=$SHELLOPTS __interp_st= __interp_stop= __interp_reset= __interp_eof=
"""
_SETUP = (
    "PS1=; PS2=; PS0=; PROMPT_COMMAND=; unset HISTFILE; set +m +H +o history; history -c; "
    "bind 'set enable-bracketed-paste off' 2>/dev/null\n" + _FUNCTIONS
)
STOPPED_NOTE = ("the block stopped at its first failing command (set -e); the shell, its "
                "variables, functions and working directory were kept")


@dataclass(frozen=True)
class Dialect:
    """What differs between the shells a shell block runs in: the program and its flags, the
    set-up sent once, the ERR trap at the top of each block, and the run and ping lines."""

    program: str
    flags: tuple[str, ...]
    setup: str
    err_trap: str  # `trap '...' SIGNAL`, completed by the block's file
    run: str  # format(path=, token=)
    ping: str  # format(token=)


# __interp_end turns tracing off first, its own call traced to a closed standard error (cheaper
# than opening /dev/null), then puts the options back and reports.
BASH = Dialect(
    "bash", ("--noprofile", "--norc", "--noediting", "+m", "-i"), _SETUP, f"trap '{_ERR_TRAP}' ERR",
    "source {path} </dev/null || {{ __interp_st=$?; }} 2>&-; {{ __interp_end {token}; }} 2>&-\n",
    "{{ __interp_end {token}; }} 2>&-\n")


class ShellRunner(ProcessRunner):
    """Runs shell blocks with bash; cd, exports, functions and aliases persist."""

    name = "shell"
    aliases = ("bash", "sh")  # sh too: bash is an sh, and models tag bash code `sh`
    suffix = ".sh"
    command_fd = 0
    dialect = BASH

    def argv(self) -> list[str]:
        """An interactive shell without startup files, line editing or job control."""
        program = shutil.which(self.dialect.program, path=self._environment().get("PATH"))
        if program is None:
            raise RunnerStartError(f"{self.dialect.program} was not found on PATH")
        return [program, *self.dialect.flags]

    def env_overrides(self) -> dict[str, str]:
        """`python`, `python3`, `pip` and `pip3` run the interpreter Python blocks use."""
        return python_first(self.config)

    def setup_command(self) -> bytes:
        """Silence the prompts, history and job notices; define the block's prologue and end."""
        return self.dialect.setup.encode()

    def block_text(self, code: str) -> str:
        """The ERR trap, then the code as one brace group, with its line numbers kept; a pasted
        terminal session (`$ ` prompts) keeps only its commands (see shell_console)."""
        pasted = console_commands(code)
        self._pasted = pasted is not None
        return f"{self.dialect.err_trap}; {{ :; {code if pasted is None else pasted}\n}}\n"

    def run_command(self, token: str, path: str) -> bytes:
        """Source the block where errexit cannot end bash, then print the marker and status."""
        return self.dialect.run.format(path=shlex.quote(path), token=token).encode()

    def read_status(self, status: dict | None) -> dict | None:
        """Notes for the model: the block stopped at a failure; options it set were reset."""
        if not status:
            return status
        notes = [CONSOLE_NOTE] if getattr(self, "_pasted", False) else []
        notes += [STOPPED_NOTE] if status.get("stopped") else []
        reset = [name for name in status.get("reset") or () if isinstance(name, str)]
        if reset:
            notes.append(f"shell options set by the block ({', '.join(reset)}) applied to it "
                         f"only and were reset")
        return dict(status, notes=notes) if notes else status

    def ping_command(self, token: str) -> bytes:
        """Put the shell back as __interp_end does, then print the marker: a ping follows a
        Ctrl-C, which abandons the run command's line before its __interp_end."""
        return self.dialect.ping.format(token=token).encode()

    def sync_command(self, token: str) -> bytes:
        """Print the marker only (__interp_end has run)."""
        return f"printf '__INTERP_%s__{{}}\\n' {token}\n".encode()
