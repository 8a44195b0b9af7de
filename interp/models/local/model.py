"""`--local`: a GGUF model run by llama.cpp's server on this machine, used through interp's own OpenAI client.

The server starts on the first model call (with status callbacks while it loads) and stops
with `close()`. Requests go through interp's own OpenAI client like any OpenAI-compatible endpoint; what
litellm cannot know about a local file comes from the server: the context window llama.cpp
allocated, whether the model's chat template takes tools, exact token counts (its tokenizer)
and the prompt and generation speed it measured.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from interp.models.base import LOCAL, REPEATING, Model, ModelError, Reply, Retrying, Slot, Usage
from interp.models.reach import model_for
from interp.models.stream import repeating
from interp.models.local.server import LocalServer, LocalServerError
from interp.models.local.files import ModelFileError, read_gguf, writes_calls_as_text
from interp.models.local.grammar import slots_grammar

# Qwen2.5's code-interpreter format: after a code block it writes the block's "output" itself
# (made up) and then answers from it. Generation stops there, so only the real output is read.
MADE_UP_OUTPUT = "```output"
REQUEST_TIMEOUT = 600.0  # seconds without a byte: a long prompt on a slow CPU takes minutes
_HTTP_TIMEOUT = 30.0


@dataclass(frozen=True)
class Speed:
    """What llama.cpp measured since the server started: tokens and seconds spent on each."""

    prompt_tokens: int
    prompt_seconds: float
    generated_tokens: int
    generation_seconds: float

    @property
    def prompt_rate(self) -> float | None:
        """Prompt tokens processed per second."""
        return self.prompt_tokens / self.prompt_seconds if self.prompt_seconds > 0 else None

    @property
    def generation_rate(self) -> float | None:
        """Tokens generated per second."""
        return (self.generated_tokens / self.generation_seconds
                if self.generation_seconds > 0 else None)


class LocalModel:
    """The Model protocol for a local GGUF served by llama.cpp (see LocalServer)."""

    def __init__(self, server: LocalServer, *, name: str = LOCAL) -> None:
        self.name = name
        self.server = server
        self.params: dict = {}  # extra request parameters, e.g. temperature (as a remote model's)
        self._inner: Model | None = None
        try:
            header = read_gguf(server.config.model)
            self._trained_context, self._model_name = header.context_length, header.name
        except ModelFileError:
            self._trained_context, self._model_name = None, None

    def __repr__(self) -> str:
        return f"LocalModel({str(self.server.config.model)!r})"

    def _ready(self, sampling: dict | None = None) -> Model:
        """The model (interp's own OpenAI client) for the loaded server (loading it first),
        its requests made with `sampling` over the model's params; ModelError if it fails."""
        try:
            info = self.server.wait()
        except LocalServerError as exc:
            raise ModelError("connection", f"Local model: {exc}") from None
        base = info.address + "/v1"
        if self._inner is None or self._inner.api_base != base:
            self._inner = model_for("openai/" + LOCAL, api_base=base,
                                    api_key="sk-no-key-required",
                                    request_timeout=REQUEST_TIMEOUT,
                                    max_tokens=self.server.config.predict or 0,
                                    params=self.params)
        self._inner.params = {"stop": [MADE_UP_OUTPUT], **self.params, **(sampling or {})}
        return self._inner

    one_block_per_reply = True  # small models make up what follows a block (see asking.py)
    # a reply that proposes failed code again is asked for again with this (see interp/core/checks/reruns.py)
    retry_sampling = {"temperature": 0.7}
    # a reply that ran on to the length limit inside a block, repeating lines, is asked again
    # with this: llama.cpp's DRY sampler penalises extending text already written; its default
    # sequence breakers (newline, colon, quote) never let it see a cycle of repeated lines
    runaway_sampling = {"temperature": 0.7, "dry_multiplier": 0.8,
                        "dry_sequence_breakers": ["```"]}

    # a request whose reply must not depend on the ones before it (`interp eval`'s one-request
    # modes) is made with this: a prompt prefix reused from llama.cpp's cache changes greedy
    # replies (HumanEval/41's was its placeholder fresh, code after HumanEval/58's prompt)
    fresh_sampling = {"cache_prompt": False}

    def template_sampling(self, slots: tuple[Slot, ...]) -> dict:
        """A reply held to a template's slots (answer-format's restatement): a llama.cpp
        grammar that writes each slot, a value, and its closing bracket, one a line."""
        return {"grammar": slots_grammar(slots)}

    def stream(self, messages: list[dict], tools: list[dict] | None = None, *,
               until: Callable[[str], int | None] | None = None,
               sampling: dict | None = None) -> Iterator[str | Reply]:
        """Load the model if need be, then stream from it; a crashed server is reported
        and started again on the next call. `until(text)`: where the reply so far is
        complete; the request is closed there (llama.cpp stops generating) and the reply ends.
        `sampling`: request parameters for this call only (temperature, seed). A reply that
        keeps repeating itself (stream.repeating) is closed the same way, its finish reason
        REPEATING: on this machine's CPU the rest of it would take minutes and say nothing."""
        inner = self._ready(sampling)
        items, text = inner.stream(messages, tools), ""
        try:
            for item in items:
                if isinstance(item, Reply) and item.usage is not None and item.usage.cost is None:
                    item = replace(item, usage=replace(item.usage, cost=0.0))  # runs here: free
                elif isinstance(item, Retrying) and item.restart:
                    text = ""
                elif isinstance(item, str):
                    end = until(text + item) if until is not None else None
                    if end is not None:  # within `item`: `text` had no end yet
                        items.close()
                        yield item[:end - len(text)]
                        yield self._cut_reply(messages, (text + item)[:end])
                        return
                    text += item
                    if repeating(text):
                        items.close()
                        yield item
                        yield self._cut_reply(messages, text, REPEATING)
                        return
                yield item
        except ModelError as exc:
            died = self.server.died()
            if died is None:
                raise
            self.server.stop(keep_log=True)
            raise ModelError("connection", f"Local model: {died}; it starts again with your "
                             f"next message", detail=exc.detail, partial=exc.partial,
                             attempts=exc.attempts) from exc

    def _cut_reply(self, messages: list[dict], text: str, finish: str = "stop") -> Reply:
        """The reply ended here (by `until`, or repeating), with the tokens counted by the
        model's own tokenizer."""
        info = self.server.info
        try:
            completion = len(_post(info.address + "/tokenize", {"content": text})["tokens"])
        except (AttributeError, OSError, ValueError, KeyError, TypeError):
            completion = len(text) // 4
        return Reply(text, (), Usage(self.count_tokens(messages), completion, 0.0), finish)

    def supports_tools(self) -> bool:
        """Whether the model's chat template takes tools (asked of the loaded server)."""
        self._ready()
        info = self.server.info
        return bool(info and info.supports_tools)

    def tool_support(self) -> bool:
        """Whether to offer the execute tool: what the chat template takes, unless the model
        is one measured to write its calls as text (fenced blocks serve it better)."""
        return self.tool_note is None and self.supports_tools()

    @property
    def tool_note(self) -> str | None:
        """Why the tool is not offered to a model whose template takes it, or None."""
        if not writes_calls_as_text(self._model_name or self.server.config.model.name):
            return None
        return "it writes tool calls as text, measured with interp's task benchmark"

    def supports_vision(self) -> bool:
        """Whether llama.cpp loaded a vision projector (never, as interp starts it)."""
        info = self.server.info
        return bool(info and info.vision)

    def context_window(self) -> int | None:
        """The context llama.cpp allocated; before loading, what it will allocate."""
        info = self.server.info
        if info is not None and info.n_ctx > 0:
            return info.n_ctx
        return self.server.config.context or self._trained_context

    def count_tokens(self, messages: list[dict]) -> int:
        """Exact, with the model's own template and tokenizer once loaded; else an estimate."""
        info = self.server.info
        if info is not None:
            try:
                prompt = _post(info.address + "/apply-template", {"messages": messages})["prompt"]
                tokens = _post(info.address + "/tokenize", {"content": prompt})["tokens"]
                return len(tokens)
            except (OSError, ValueError, KeyError, TypeError):
                pass  # an odd message the template rejects: estimate instead
        return len(json.dumps(messages, default=str)) // 4

    def speed(self) -> Speed | None:
        """Prompt and generation speed as llama.cpp measured it, or None before loading."""
        info = self.server.info
        if info is None:
            return None
        try:
            with urllib.request.urlopen(info.address + "/metrics",
                                        timeout=_HTTP_TIMEOUT) as response:
                text = response.read().decode("utf-8", "replace")
        except OSError:
            return None
        values = _prometheus(text)
        return Speed(int(values.get("llamacpp:prompt_tokens_total", 0)),
                     values.get("llamacpp:prompt_seconds_total", 0.0),
                     int(values.get("llamacpp:tokens_predicted_total", 0)),
                     values.get("llamacpp:tokens_predicted_seconds_total", 0.0))

    def preload(self) -> None:
        """Start loading the model now, in the background (the first request waits for it)."""
        try:
            self.server.start()
        except LocalServerError:
            pass  # the first request starts it again and reports why it fails

    def loading(self) -> float | None:
        """Seconds a background load has been running, or None when it is not loading."""
        return self.server.loading()

    def close(self) -> None:
        """Stop the server."""
        self.server.stop()


def _post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=_HTTP_TIMEOUT) as response:
        return json.load(response)


def _prometheus(text: str) -> dict[str, float]:
    """Metric name -> value, from Prometheus' text format (no labels used here)."""
    values = {}
    for line in text.splitlines():
        if line.startswith("#") or " " not in line:
            continue
        name, _, value = line.rpartition(" ")
        try:
            values[name.strip()] = float(value)
        except ValueError:
            continue
    return values
