"""Choosing the runner per language: the built-in one, a local kernel, or a kernel on a gateway.

An entry is `LANGUAGE=RUNNER` (`--runner`, `INTERP_RUNNERS`, or config.toml's `[runners]`):
`builtin`, `jupyter` / `jupyter:KERNEL` (an installed kernelspec), or `gateway` /
`gateway:KERNEL` (a kernel on the gateway at `gateway_url`). A language that has no built-in
runner (`r=jupyter:ir`) becomes a new language.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .kernel import DEFAULT_KERNELS, DEFAULT_TOKEN_ENV, KernelChoice
from ..registry import Registry

BACKENDS = ("builtin", "jupyter", "gateway")
GENERIC_RUNNER = "jupyter"  # the registry entry (from the entry point) that kernels come from
_LANGUAGE = re.compile(r"^[A-Za-z][A-Za-z0-9_+.-]*$")
USAGE = "expected LANGUAGE=RUNNER with RUNNER one of builtin, jupyter[:KERNEL], gateway[:KERNEL]"


class ChoiceError(ValueError):
    """A runner choice that cannot be used; the message is one line."""


@dataclass(frozen=True)
class RunnerChoice:
    """One language's runner."""

    language: str
    backend: str  # one of BACKENDS
    kernel: str | None = None


@dataclass(frozen=True)
class GatewaySettings:
    """Where the gateway is and which variable holds its token (never the token itself)."""

    url: str | None = None
    token_env: str = DEFAULT_TOKEN_ENV
    start_timeout: float = 60.0


def parse_choice(entry: str) -> RunnerChoice:
    """`python=gateway:python3` -> RunnerChoice("python", "gateway", "python3")."""
    language, sep, spec = entry.partition("=")
    language, spec = language.strip().lower(), spec.strip()
    if not sep or not _LANGUAGE.match(language) or not spec:
        raise ChoiceError(f"runner {entry!r}: {USAGE}")
    backend, _, kernel = spec.partition(":")
    backend, kernel = backend.strip().lower(), kernel.strip() or None
    if backend not in BACKENDS or (backend == "builtin" and kernel):
        raise ChoiceError(f"runner {entry!r}: {USAGE}")
    return RunnerChoice(language, backend, kernel)


def apply_choices(registry: Registry, entries: Iterable[str],
                  gateway: GatewaySettings) -> list[str]:
    """Register the chosen runners (later entries win); returns a notice per kernel language."""
    chosen: dict[str, RunnerChoice] = {}
    for entry in entries:
        choice = parse_choice(entry)
        name = registry.canonical(choice.language) if choice.language in registry else choice.language
        chosen[name] = choice
    notices = []
    for name, choice in chosen.items():
        if choice.backend == "builtin":
            if name not in registry or registry.resolve(name).name == GENERIC_RUNNER:
                raise ChoiceError(f"runner {name}=builtin: interp has no built-in {name} runner")
            continue
        notices.append(_bind(registry, name, choice, gateway))
    return notices


def _bind(registry: Registry, name: str, choice: RunnerChoice, gateway: GatewaySettings) -> str:
    if GENERIC_RUNNER not in registry or not hasattr(registry.resolve(GENERIC_RUNNER), "for_language"):
        raise ChoiceError(f"runner {name}={choice.backend}: the jupyter runner is not installed "
                          "(pip install 'interp[jupyter]')")
    url = None
    if choice.backend == "gateway":
        url = gateway.url
        if not url:
            raise ChoiceError(f"runner {name}=gateway needs the gateway's URL: --gateway-url URL, "
                              "INTERP_GATEWAY_URL, or gateway_url in config.toml")
        if not re.match(r"^https?://[^/\s]+", url):
            raise ChoiceError(f"gateway URL {url!r}: expected http://HOST:PORT or https://HOST/PATH")
    aliases = registry.resolve(name).aliases if name in registry else ()
    kernel = KernelChoice(choice.kernel or DEFAULT_KERNELS.get(name, name), url,
                          gateway.token_env, gateway.start_timeout)
    registry.register(registry.resolve(GENERIC_RUNNER).for_language(name, aliases, kernel))
    if url:
        return (f"{name} blocks run in {kernel.describe()}: the sandbox, resource limits and "
                "environment scrubbing do not apply there.")
    return f"{name} blocks run in {kernel.describe()}."
