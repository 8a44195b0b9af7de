"""A model call waited for in a worker thread is interrupted from another thread (as a
front end's cancel does): the wait raises KeyboardInterrupt there at once, not at the deadline."""

from __future__ import annotations

import threading
import time

from fake_openai import FakeOpenAI
from helpers import HANG_GUARD
from session_kit import KEY

from interp.models.reach import model_for
from interp.models.watch import interrupt_call


def test_a_call_waiting_for_its_first_token_is_interrupted_from_another_thread():
    with FakeOpenAI([{"text": "late", "delay": 50}]) as server:
        model = model_for("openai/fake-model", api_base=server.api_base, api_key=KEY)
        outcome: list[BaseException | str] = []

        def work() -> None:
            try:
                outcome.extend(item for item in model.stream([{"role": "user", "content": "hi"}]))
            except BaseException as exc:  # noqa: BLE001 - the test looks at which
                outcome.append(exc)

        worker = threading.Thread(target=work)
        worker.start()
        deadline = time.monotonic() + HANG_GUARD
        while not server.requests and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.requests, "the request never arrived"
        assert interrupt_call(worker)
        worker.join(HANG_GUARD)
    assert not worker.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], KeyboardInterrupt)
    assert not interrupt_call(worker)  # no call is waited for any more


def test_nothing_is_interrupted_when_no_call_is_waited_for():
    assert not interrupt_call(threading.current_thread())
