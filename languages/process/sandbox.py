"""An OS sandbox for runners: bubblewrap (Linux) with a read-only root and no network by default.

Modes: "off"; "workspace" (the root is read-only, the working directory and a private /tmp are
writable); "read-only" (only a private /tmp is writable). The network is cut unless
`network=True`. bwrap ignores Ctrl-C (the runner's pre-exec sets SIGINT to SIG_IGN) and the
sandboxed command restores it with `env --default-signal=INT`, so interrupts reach the interpreter
only, exactly as outside the sandbox.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

from .spawn import RunnerStartError

MODES = ("off", "workspace", "read-only")
_INSTALL = "install it (apt-get install bubblewrap)"
_REPAIR = "make bwrap work (it needs unprivileged user namespaces, or root)"


class SandboxError(RunnerStartError):
    """The sandbox was asked for but cannot be used; the message is one line that names the fix."""


@dataclass(frozen=True)
class Sandbox:
    """How runners are confined: mode, network access and extra writable directories."""

    mode: str = "off"
    network: bool = False
    writable: tuple[str, ...] = ()
    bwrap: str = "bwrap"

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown sandbox mode {self.mode!r}; expected one of {', '.join(MODES)}")
        object.__setattr__(self, "writable", tuple(os.fspath(p) for p in self.writable))

    @property
    def active(self) -> bool:
        """True unless the mode is "off"."""
        return self.mode != "off"

    def describe(self) -> str:
        """A short human description, e.g. 'workspace sandbox, no network'."""
        if not self.active:
            return "no sandbox"
        return f"{self.mode} sandbox, {'network allowed' if self.network else 'no network'}"

    def fix(self, problem: str, remedy: str = _INSTALL) -> str:
        """The one-line error for `problem`, naming the way out."""
        return f"the {self.mode} sandbox {problem}: {remedy} or pass --sandbox off"

    def failed(self, detail: str) -> SandboxError:
        """The error for a bwrap that is installed but did not start."""
        return SandboxError(self.fix(f"could not start ({detail})", _REPAIR))

    def executable(self) -> str:
        """The absolute path of bwrap; SandboxError when it is missing or the OS is not Linux."""
        if not sys.platform.startswith("linux"):
            raise SandboxError(f"the {self.mode} sandbox needs Linux (bubblewrap); pass --sandbox off")
        found = shutil.which(self.bwrap)
        if found is None:
            raise SandboxError(self.fix("needs bubblewrap"))
        return found

    def start_error(self, exc: RunnerStartError) -> RunnerStartError:
        """A start failure that bwrap reported becomes a one-line SandboxError naming the fix."""
        text = str(exc)
        if not self.active or isinstance(exc, SandboxError) or "bwrap" not in text:
            return exc
        return self.failed(first_line(text[text.index("bwrap"):]))

    def exit_status(self, code: int | None, number: int | None) -> tuple[int | None, int | None]:
        """(exit code, signal number) of the interpreter: bwrap reports death by signal N as 128 + N."""
        if self.active and number is None and code is not None and code > 128:
            return None, code - 128
        return code, number

    def wrap(self, argv: list[str], cwd: str, readable_dirs: tuple[str, ...] = ()) -> list[str]:
        """`argv` run inside bwrap, with `cwd` as the workspace and `readable_dirs` bound read-only."""
        if not self.active:
            return list(argv)
        env = shutil.which("env") or "/usr/bin/env"
        cwd = os.path.realpath(cwd)
        args = [self.executable(), "--unshare-pid",
                "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                "--tmpfs", "/tmp", "--tmpfs", "/dev/shm"]
        if not self.network:
            args.append("--unshare-net")
        for path in readable_dirs:  # first, so that a workspace inside one stays writable
            real = os.path.realpath(path)
            args += ["--ro-bind", real, real]
        workspace = "--bind" if self.mode == "workspace" else "--ro-bind"
        args += [workspace, cwd, cwd]
        if self.mode == "workspace":
            for path in self.writable:
                real = os.path.realpath(path)
                args += ["--bind", real, real]
        return [*args, "--chdir", cwd, "--", env, "--default-signal=INT", *argv]


def check_sandbox(sandbox: Sandbox, cwd: str | None = None, timeout: float = 10.0) -> None:
    """Preflight: run `true` in the sandbox; SandboxError (one line, naming the fix) if it fails."""
    if not sandbox.active:
        return
    argv = sandbox.wrap(["true"], cwd or os.getcwd())
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise sandbox.failed(f"no answer within {timeout:g} s") from None
    except OSError as exc:
        raise sandbox.failed(f"{argv[0]}: {exc.strerror}") from None
    if done.returncode != 0:
        raise sandbox.failed(first_line(done.stderr))


def first_line(data: bytes | str) -> str:
    """The first non-empty line of an error message, trimmed to 200 characters."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return (lines[0] if lines else "no error message")[:200]
