"""The shell runner: one interactive bash, kept alive between blocks.

bash reads its commands from the runner's pipe on standard input; each block is sourced with
standard input at end-of-file. A block's own `set -e` (and -u, -o pipefail, ...) applies to
that block only: the block is sourced where bash ignores errexit (the left side of `||`), so
no failure can make bash itself exit, and an ERR trap that the block's file installs first
stops the block at its first failing command while errexit is set (`return` from the sourced
file, or `exit` from a subshell). The block's text is one brace group, so an error that
aborts a command (an unset variable under `set -u`, a bad substitution) ends the block, as it
would end a script. Afterwards every `set -o` option goes back to what it was before the block.
An explicit `exit` still ends bash: that is reported and the runner restarts.
"""

from __future__ import annotations

import shlex
import shutil

from .base import ProcessRunner
from .procs import RunnerStartError

# A failing command while errexit is set: leave the subshell, or stop the block (from inside a
# function too: each caller's failure comes back here until the sourced file returns).
_ERR_TRAP = (
    "__interp_s=$?; if [[ $- == *e* || -n ${__interp_stop-} ]]; then "
    "if (( BASH_SUBSHELL )); then exit $__interp_s; fi; "
    "__interp_stop=${__interp_stop:-$__interp_s}; return $__interp_s; fi"
)
_FUNCTIONS = r"""
__interp_begin() {
  __interp_opts=$SHELLOPTS __interp_stop= __interp_st=; trap '@TRAP@' ERR; set -E; __interp_set=$SHELLOPTS
}
__interp_end() {
  set +xv
  local __reset= __extra=
  if [[ $SHELLOPTS == "$__interp_set" ]]; then  # the block set no option: undo set -E alone
    [[ $SHELLOPTS == "$__interp_opts" ]] || set +E
  else
    local IFS=: __o
    for __o in $SHELLOPTS; do
      [[ :$__interp_opts: == *:$__o:* ]] || { set +o "$__o"; [[ $__o == errtrace ]] || __reset+="\"$__o\","; }
    done
    for __o in $__interp_opts; do
      [[ :$SHELLOPTS: == *:$__o:* ]] || { set -o "$__o"; __reset+="\"$__o\","; }
    done
  fi
  [[ -n ${__interp_stop-} ]] && __extra+=',"stopped":true'
  [[ -n $__reset ]] && __extra+=",\"reset\":[${__reset%,}]"
  printf '__INTERP_%s__{"exit_code":%d%s}\n' "$1" "${__interp_st:-0}" "$__extra"
  __interp_stop=
}
""".replace("@TRAP@", _ERR_TRAP)
_SETUP = (
    "PS1=; PS2=; PS0=; PROMPT_COMMAND=; unset HISTFILE; set +m +H +o history; history -c; "
    "bind 'set enable-bracketed-paste off' 2>/dev/null\n" + _FUNCTIONS
)
STOPPED_NOTE = ("the block stopped at its first failing command (set -e); the shell, its "
                "variables, functions and working directory were kept")


class ShellRunner(ProcessRunner):
    """Runs shell blocks with bash; cd, exports, functions and aliases persist."""

    name = "shell"
    aliases = ("bash", "sh", "zsh")
    suffix = ".sh"
    command_fd = 0

    def argv(self) -> list[str]:
        """An interactive bash without startup files, line editing or job control."""
        bash = shutil.which("bash", path=self._environment().get("PATH"))
        if bash is None:
            raise RunnerStartError("bash was not found on PATH")
        return [bash, "--noprofile", "--norc", "--noediting", "+m", "-i"]

    def setup_command(self) -> bytes:
        """Silence the prompts, history and job notices; define the block's prologue and end."""
        return _SETUP.encode()

    def block_text(self, code: str) -> str:
        """The prologue and the code as one brace group, with the code's line numbers kept."""
        return f"__interp_begin; {{ :; {code}\n}}\n"

    def run_command(self, token: str, path: str) -> bytes:
        """Source the block where errexit cannot end bash, then print the marker and status."""
        # Short, as bash reads its commands from the pipe a byte at a time: the block's file
        # starts with __interp_begin (note the options, clear the last block's state), and
        # __interp_end turns tracing off first, its own call traced to /dev/null.
        return (f"source {shlex.quote(path)} </dev/null || {{ __interp_st=$?; }} 2>/dev/null; "
                f"{{ __interp_end {token}; }} 2>/dev/null\n").encode()

    def read_status(self, status: dict | None) -> dict | None:
        """Notes for the model: the block stopped at a failure; options it set were reset."""
        if not status:
            return status
        notes = [STOPPED_NOTE] if status.get("stopped") else []
        reset = [name for name in status.get("reset") or () if isinstance(name, str)]
        if reset:
            notes.append(f"shell options set by the block ({', '.join(reset)}) applied to it "
                         f"only and were reset")
        return dict(status, notes=notes) if notes else status

    def ping_command(self, token: str) -> bytes:
        """Print the marker only."""
        return f"printf '__INTERP_%s__{{}}\\n' {token}\n".encode()
