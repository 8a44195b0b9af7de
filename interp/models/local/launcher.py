"""Starting the server process from a thread that lives as long as interp does.

The server asks the kernel for SIGKILL when its parent dies (PR_SET_PDEATHSIG), and Linux
sends it when the *thread* that forked the child ends, not the process: a server started from
a worker thread (the pool of one `interp eval` mode) would be killed when that thread ends.
"""

from __future__ import annotations

import queue
import subprocess
import threading
from concurrent.futures import Future

_START_BOUND = 60.0  # seconds: a fork and exec, even on a loaded machine


class Launcher:
    """Popen on the main thread, or else on one daemon thread kept for the purpose."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def popen(self, args: list[str], **options) -> subprocess.Popen:
        """subprocess.Popen(args, **options), forked by a thread that outlives the caller's."""
        if threading.current_thread() is threading.main_thread():
            return subprocess.Popen(args, **options)
        job: Future = Future()
        self._jobs.put((job, args, options))
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, daemon=True,
                                                name="interp-local-launcher")
                self._thread.start()
        return job.result(timeout=_START_BOUND)

    def _serve(self) -> None:
        while True:
            job, args, options = self._jobs.get()
            if not job.set_running_or_notify_cancel():
                continue
            try:
                job.set_result(subprocess.Popen(args, **options))
            except BaseException as exc:  # handed to the caller, who raises it
                job.set_exception(exc)
