"""The HTTP client of a model's calls: its connections are tracked, so the call's Wire can
shut them down (a deadline or Ctrl-C closes a connection even before the server has answered,
and a local server then frees its slot). interp's own clients send through it, and litellm is
given it where it takes one (litellm/transport.py)."""

from __future__ import annotations

import contextlib
import threading

import httpcore
import httpx

from interp.models.watch import WIRE_ATTRIBUTE, on_response


class _TrackingBackend(httpcore.NetworkBackend):
    """Opens connections like httpcore's own and hands each socket to the caller's Wire."""

    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self.inner = inner

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        return self._tracked(self.inner.connect_tcp(host, port, timeout, local_address,
                                                    socket_options))

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        return self._tracked(self.inner.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)

    @staticmethod
    def _tracked(stream):
        wire = getattr(threading.current_thread(), WIRE_ATTRIBUTE, None)
        if wire is not None:
            with contextlib.suppress(Exception):
                wire.track_socket(stream.get_extra_info("socket"))
        return stream


def tracked_client(timeout: float) -> httpx.Client:
    """An httpx client whose connections are tracked, one per request (none kept alive, so
    that a request never starts on a connection the Wire did not see open)."""
    transport = httpx.HTTPTransport(retries=0)
    if isinstance(getattr(transport, "_pool", None), httpcore.ConnectionPool):
        transport._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(), max_keepalive_connections=0,
            keepalive_expiry=0.0, network_backend=_TrackingBackend(httpcore.SyncBackend()))
    return httpx.Client(transport=transport, follow_redirects=True,
                        timeout=httpx.Timeout(timeout, connect=min(timeout, 30.0)),
                        event_hooks={"response": [on_response]})
