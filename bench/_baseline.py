"""Raw baselines: the same interpreters driven by pexpect's replwrap with no send delay."""

from __future__ import annotations

import os
import select
import shutil
import time

import pexpect
from pexpect import replwrap

# A trivial command per language, a command that blocks, and a command that prints a token.
TRIVIAL = {"python": "x = 1", "shell": "true", "javascript": "1"}
ECHO = {"python": "print({!r})", "shell": "echo {}", "javascript": "console.log({!r})"}
# The Node REPL echoes input in terminal mode, so its blocking commands avoid the prompt text "> ".
RAW_BLOCKERS = {
    "javascript await": "await new Promise(function (r) { setTimeout(r, 1e6) })",
    "javascript busy": "while (true) {}",
}


def spawn(lang: str, python: str) -> replwrap.REPLWrapper:
    """A started REPL for lang, ready at its prompt; pexpect's 50 ms send delay is off."""
    env = dict(os.environ, TERM="dumb", NO_COLOR="1", PYTHON_BASIC_REPL="1", PS1="$ ")
    if lang == "python":
        cmd, args, prompt = python, ["-q", "-i"], ">>> "
    elif lang == "shell":
        cmd, args, prompt = "bash", ["--noprofile", "--norc", "--noediting", "-i"], "$ "
    else:
        # `node -i` in terminal mode: with NODE_NO_READLINE=1 the REPL dies on Ctrl-C instead.
        env["NODE_DISABLE_COLORS"] = "1"
        cmd, args, prompt = "node", ["-i"], "> "
    child = pexpect.spawn(cmd, args, echo=False, encoding="utf-8", env=env, timeout=30,
                          dimensions=(40, 160))
    child.delaybeforesend = None
    child.ptyproc.delayafterclose = 0
    child.ptyproc.delayafterterminate = 0.02
    return replwrap.REPLWrapper(child, prompt, None)


def close(wrap: replwrap.REPLWrapper) -> None:
    """Kill the REPL."""
    try:
        wrap.child.close(force=True)
    except (pexpect.ExceptionPexpect, OSError):
        pass


def available(lang: str, python: str) -> str | None:
    """Why the baseline for lang cannot run, or None."""
    exe = {"python": python, "shell": "bash", "javascript": "node"}[lang]
    return None if shutil.which(exe) else f"{exe} not found"


def warm(wrap: replwrap.REPLWrapper, command: str, runs: int) -> list[float]:
    """Round-trip times of a trivial command."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        wrap.run_command(command, timeout=10)
        times.append(time.perf_counter() - t)
    return times


def cold(lang: str, python: str) -> float:
    """Spawn the REPL and run the first trivial command."""
    t = time.perf_counter()
    wrap = spawn(lang, python)
    wrap.run_command(TRIVIAL[lang], timeout=30)
    took = time.perf_counter() - t
    close(wrap)
    return took


def interrupt(wrap: replwrap.REPLWrapper, lang: str, command: str, delay: float) -> tuple[float, bool]:
    """Ctrl-C a blocking command after delay; (seconds to the prompt, next output is its own)."""
    wrap.child.sendline(command)
    time.sleep(delay)
    t = time.perf_counter()
    wrap.child.sendintr()
    wrap.child.expect_exact(wrap.prompt, timeout=10)
    took = time.perf_counter() - t
    token = f"tok{os.getpid()}x{int(t * 1000) % 100000}"
    out = wrap.run_command(ECHO[lang].format(token), timeout=10)
    return took, token in out.replace("\r", "").split("\n")


def output_child(mode: str, python: str, block: str) -> tuple[int, float]:
    """Bytes read and seconds taken for block's output over a pty: raw read loop or replwrap."""
    if mode == "raw":
        return pty_floor([python, "-c", block])
    wrap = spawn("python", python)
    t = time.perf_counter()
    out = wrap.run_command(block, timeout=300)
    took = time.perf_counter() - t
    close(wrap)
    return len(out), took


def pty_floor(argv: list[str], preexec=None) -> tuple[int, float]:
    """The transport's ceiling: argv on a pty drained by a plain os.read loop, output
    discarded; (bytes read, seconds from the first byte to end-of-file)."""
    env = dict(os.environ, TERM="dumb", NO_COLOR="1")  # as the runners set it: no colours
    child = pexpect.spawn(argv[0], argv[1:], echo=False, encoding=None, timeout=120,
                          preexec_fn=preexec, env=env)
    total, t = 0, None
    while True:
        if not select.select([child.child_fd], [], [], 60)[0]:
            break
        try:
            data = os.read(child.child_fd, 1 << 16)
        except OSError:  # EIO: the child closed the pty
            break
        if not data:
            break
        t = t or time.perf_counter()
        total += len(data)
    took = time.perf_counter() - (t or time.perf_counter())
    child.close(force=True)
    return total, took
