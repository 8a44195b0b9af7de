"""`--local` in the terminal: offering it, downloading the default model, showing the load."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

from rich.console import Console
from rich.progress import (BarColumn, DownloadColumn, Progress, TextColumn,
                           TimeRemainingColumn, TransferSpeedColumn)
from rich.text import Text

from interp.models.local.server import LoadStatus
from interp.models.local.download import download, part_path
from interp.models.local.files import ModelSpec, size_text
from interp.ui.status import StatusLine
from interp.ui.yesno import ask_yes_no

OFFER = ("No model is configured and no API key was found. interp can run a model on this "
         "machine instead (interp --local): no key, nothing leaves the machine.")


def offer_local(console: Console) -> bool:
    """Ask whether to use the local model when nothing else is configured."""
    console.print(Text(OFFER))  # wrapped at word boundaries
    return ask_yes_no(console, "Use the local model?")


def offer_download(console: Console, spec: ModelSpec, dest: Path, url: str) -> bool:
    """Ask whether to download `spec` from `url` to `dest`."""
    host = urllib.parse.urlsplit(url).netloc
    part = part_path(dest)
    resume = part.stat().st_size if part.exists() else 0
    console.print(Text(f"The local model is not downloaded yet: {spec.title}, "
                       f"{size_text(spec.size)} from {host}, to be kept in {dest.parent}."
                       + (f" An earlier download stopped at {size_text(resume)}; it resumes."
                          if resume else "")))
    return ask_yes_no(console, "Download it now?")


def fetch_model(spec: ModelSpec, dest: Path, url: str) -> Path | None:
    """Offer to download `spec` in the terminal and download it with a progress bar; None when
    the person declines (DownloadError when the download fails)."""
    console = Console(stderr=True)
    if not offer_download(console, spec, dest, url):
        return None
    return download_with_progress(console, spec, dest, url)


def loading_status(line: StatusLine | None = None) -> LoadingStatus:
    """The local model's load, shown on the run's status line `line` when it has one, else
    on stderr (stdout may carry --json)."""
    console = Console(file=line.stream) if line is not None else Console(stderr=True)
    return LoadingStatus(console, line)


def download_with_progress(console: Console, spec: ModelSpec, dest: Path, url: str) -> Path:
    """Download `spec` to `dest` with a progress bar (DownloadError if it fails)."""
    part = part_path(dest)
    columns = (TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
               TransferSpeedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console) as bar:
        task = bar.add_task(spec.filename, total=spec.size,
                            completed=part.stat().st_size if part.exists() else 0)
        download(url, dest, sha256=spec.sha256, size=spec.size,
                 progress=lambda done, total: bar.update(task, completed=done, total=total))
    console.print(Text(f"Downloaded {dest} (sha256 checked)."),
                  soft_wrap=not console.is_terminal)  # a terminal wraps it at word boundaries
    return dest


class LoadingStatus:
    """Shows a local model's load: on the run's status line when it has one (the load is
    then a part of it), else a spinner on a terminal, plain lines elsewhere."""

    def __init__(self, console: Console, line: StatusLine | None = None) -> None:
        self.console = console
        self.line = line if line is not None and line.enabled else None
        self._status = None
        self._started_line = False  # the status line was shown for the load alone

    def __call__(self, status: LoadStatus) -> None:
        self._stop()
        if status.phase == "loading":
            self._loading(status.text + "…")
        elif status.phase == "ready":
            self._print(Text(f"{status.text} (loaded in {status.seconds:.1f} s).", style="dim"))

    def _loading(self, text: str) -> None:
        if self.line is not None:
            if self.line.active:
                self.line.note(text)
            else:
                self.line.start(text, hint="ctrl-c to stop")
                self._started_line = True
        elif self.console.is_terminal:
            self._status = self.console.status(Text(text), spinner="dots")
            self._status.start()
        else:
            self.console.print(Text(f"interp: {text}"), soft_wrap=True)

    def _print(self, text: Text) -> None:
        soft = not self.console.is_terminal  # a terminal wraps it at word boundaries
        if self.line is None:
            self.console.print(text, soft_wrap=soft)
            return
        with self.line.hidden():
            self.console.print(text, soft_wrap=soft)

    def _stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None
        if self.line is not None:
            if self._started_line:
                self.line.stop()
                self._started_line = False
            else:
                self.line.note(None)


def speed_text(speed) -> str | None:
    """The /tokens line for a local model's measured speed (interp.models.local.model.Speed)."""
    if speed is None or not (speed.prompt_rate or speed.generation_rate):
        return None
    parts = []
    if speed.prompt_rate:
        parts.append(f"prompt {speed.prompt_tokens} tokens at {speed.prompt_rate:.1f} tokens/s")
    if speed.generation_rate:
        parts.append(f"generation {speed.generated_tokens} tokens at "
                     f"{speed.generation_rate:.1f} tokens/s")
    return "Local model speed (measured by llama.cpp): " + ", ".join(parts) + "."
