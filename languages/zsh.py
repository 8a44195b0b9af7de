"""The zsh runner: one interactive zsh kept alive between blocks, run as the shell runner runs
bash (languages/shell.py); where zsh is not installed, a bash that says so in every result.

zsh has no `set -E` and ignores its ZERR trap on the left of `||`, so a block is sourced at the
top level: the ZERR trap (set by the block's file) turns errexit off before it stops the block
at its first failing command, and no failure can make zsh itself exit. A failure inside a
function returns from it, and a DEBUG trap (set only then) returns from each caller up to the
block, since zsh runs no ZERR trap for a status a trap has handled. Tracing is turned off
at the top level (zsh puts xtrace back when a function returns), then every option goes back
to the shell's own setting, as in bash. zsh blocks are judged by the shell's approval
rules (`rules_as`).
"""

from __future__ import annotations

import shutil

from .shell import BASH, Dialect, ShellRunner

_ERR_TRAP = "{ __interp_err $? || return $__interp_s; } 2>/dev/null"  # zsh reports a write to a closed one
_FUNCTIONS = r"""
__interp_err() {
  __interp_s=$1
  [[ -o errexit || -n ${__interp_stop-} ]] || return 0
  if (( ZSH_SUBSHELL )); then exit "$__interp_s"; fi
  unsetopt errexit; __interp_erred=1; __interp_stop=${__interp_stop:-$__interp_s}
  (( ${#funcstack} < 3 )) || trap "$__interp_unwind" DEBUG
  return 1
}
__interp_end() {
  __interp_restore
  printf '__INTERP_%s__{"exit_code":%d,"bg":%d%s%s%s}\n' "$2" "$1" "${!:-0}" \
    "${__interp_stop:+,\"stopped\":true}" "${__interp_reset-}" "${__interp_eof:+,\"eof\":true}"
  __interp_stop= __interp_reset= __interp_erred= __interp_eof=
}
read() { builtin read "$@" || { __interp_read_end $? "$@"; return; } 2>/dev/null; }
__interp_read_end() {
  local __s=$1 __a; shift
  for __a in "$@"; do [[ $__a == -* ]] || break; [[ $__a == *[upzcl]* ]] && return $__s; done
  (( __s != 1 )) || [[ ! ( /dev/stdin -ef /dev/null || -t 0 ) ]] || __interp_eof=1
  return $__s
}
__interp_restore() {
  local __o; __interp_reset=${__interp_erred:+'"errexit",'}
  for __o in ${(k)options}; do
    [[ $options[$__o] == $__interp_base[$__o] ]] && continue
    if [[ $__interp_base[$__o] == on ]]; then setopt $__o; else unsetopt $__o; fi
    __interp_reset+="\"$__o\","
  done 2>&-
  [[ -z $__interp_reset ]] || __interp_reset=",\"reset\":[${__interp_reset%,}]"
}
__interp_unwind='{ if (( ${#funcstack} )); then return $__interp_stop; fi; trap - DEBUG; } 2>/dev/null'
typeset -gA __interp_base; __interp_base=("${(@kv)options}"); __interp_stop= __interp_reset= __interp_erred= __interp_eof=
"""
_SETUP = ("PS1=; PS2=; PS3=; PS4='+ '; RPS1=; RPS2=; PROMPT_EOL_MARK=; unset HISTFILE; "
          "HISTSIZE=0; SAVEHIST=0; unsetopt prompt_cr prompt_sp beep notify check_jobs "
          "check_running_jobs hup; setopt interactive_comments\n" + _FUNCTIONS)
_END = "{{ __interp_st=$?; unsetopt xtrace verbose; __interp_end $__interp_st {token} }} 2>/dev/null\n"
ZSH = Dialect("zsh", ("-f", "-i", "+Z", "+m"), _SETUP, f"trap '{_ERR_TRAP}' ZERR",
              "source {path} </dev/null; " + _END, _END)
STAND_IN_NOTE = "zsh is not installed here, so this block ran in bash"


class ZshRunner(ShellRunner):
    """Runs zsh blocks with zsh where it is installed, else with bash and a note saying so."""

    name = "zsh"
    aliases = ()
    listed = False  # the model is offered `shell`; a block it tags zsh still runs here
    rules_as = "shell"  # the shell's approval rules judge zsh blocks
    dialect = ZSH

    def argv(self) -> list[str]:
        """zsh without startup files, line editing or job control, else bash as a stand-in."""
        found = shutil.which("zsh", path=self._environment().get("PATH"))
        self.dialect = ZSH if found else BASH
        return super().argv()

    def read_status(self, status: dict | None) -> dict | None:
        """The shell runner's notes, and which shell ran the block when it was not zsh."""
        status = super().read_status(status)
        if self.dialect is ZSH:
            return status
        status = status or {}  # a run cut short still says which shell it ran in
        return dict(status, notes=[*status.get("notes", ()), STAND_IN_NOTE])
