"""Asking the model, a part of the conversation loop: what the model is sent, its streamed
reply, and the tokens it cost."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace

from interp.core import events as ev
from interp.core.loop import turns
from interp.core.prompt.compaction import view
from interp.core.history import Entry, unretracted
from interp.core.prompt.payload import build_payload, has_images
from interp.core.state import SessionState
from interp.core.replies.steps import EXECUTE_TOOL, first_block_end, runner_functions
from interp.core.prompt.system_prompt import shell_of, system_prompt
from interp.core.text import clean_reply
from interp.core.replies.textcalls import valid_arguments
from interp.core.loop.turns import TurnChecks
from interp.models.base import HandedOver, ModelError, Reply, Retrying


class ModelAsker:
    """Asks the model for the next reply: what it is sent, its streamed reply (added to the
    conversation in `state`) and the tokens it cost; `checks` decides whether the execute
    tool is offered."""

    def __init__(self, state: SessionState, checks: TurnChecks) -> None:
        self.state = state
        self.checks = checks
        self._vision: tuple[object, bool] | None = None  # (model, supports_vision), cached

    def payload(self, tools: bool = False) -> list[dict]:
        """The messages the model is sent next: trimmed to its window, figures attached
        (`tools`: with the system prompt for the execute tool)."""
        # after a compaction: the summary and what came since; retracted answers left out
        history = unretracted(view(self.state.messages))
        messages = build_payload(history, self.state.model,
                                 self.supports_vision() if has_images(history) else False)
        messages = turns.valid_calls(messages)
        return self._with_tool_prompt(messages) if tools else messages

    def supports_vision(self) -> bool:
        """Whether the model takes images (asked once per model)."""
        model = self.state.model
        if self._vision is None or self._vision[0] is not model:
            self._vision = (model, bool(model.supports_vision()))
        return self._vision[1]

    def turn_event(self, turn: int, reply: Reply) -> ev.TurnCompleted:
        """The turn.completed event; the reply's tokens and cost are added to the totals."""
        usage, totals = reply.usage, self.state.totals
        if usage is not None:
            totals.prompt_tokens += usage.prompt_tokens
            totals.completion_tokens += usage.completion_tokens
        if usage is None or usage.cost is None:  # a reply without usage has no known cost
            totals.cost_known = False
        else:
            totals.cost += usage.cost
        return ev.TurnCompleted(turn=turn,
                                usage={"prompt_tokens": usage.prompt_tokens,
                                       "completion_tokens": usage.completion_tokens} if usage else None,
                                cost=usage.cost if usage else None)

    def ask(self, turn: int, sampling: dict | None = None) -> Iterator[ev.Event]:
        """Stream the model's next reply as events; returns the Reply (added to the
        conversation). KeyboardInterrupt when stopped, ModelError when the call failed (what
        arrived is kept either way). `sampling`: request parameters for this call only, as
        the model declares them (models.base.declared_sampling)."""
        state = self.state
        yield ev.ModelRequest(turn=turn, model=state.model.name)
        tools = None
        if (yield from self.checks.tool_choice()):  # may load a model
            functions = runner_functions(state.registry).values()  # MCP servers' tools
            tools = [EXECUTE_TOOL, *(function.tool() for function in functions)]
        reply, parts = None, []
        try:
            for item in self._stream(tools, sampling):
                if isinstance(item, Reply):
                    reply = item
                elif isinstance(item, Retrying):
                    parts = [] if item.restart else parts
                    yield turns.retry_event(item)
                elif isinstance(item, HandedOver):
                    yield ev.ModelHandedOver(provider=item.provider, status=item.status,
                                             detail=item.detail, text=item.text)
                else:
                    parts.append(item)
                    yield ev.MessageDelta(text=item)
                if state.stop_requested:  # stop(): the rest of the reply is not awaited
                    raise KeyboardInterrupt
        except KeyboardInterrupt:
            self._save_partial("".join(parts), "[reply interrupted by the user]")
            raise
        except ModelError as exc:  # an attempt that started over may have received more
            text = "".join(parts)
            self._save_partial(exc.partial if len(exc.partial) > len(text) else text,
                               "[reply cut off by an error]")
            raise
        reply = clean_reply(reply or Reply("".join(parts), (), None, None))
        if reply.tool_calls and not tools:
            reply = calls_as_text(reply)
        state.add(Entry(_assistant_message(reply) if not turns.is_empty(reply) else
                        {"role": "assistant", "content": turns.EMPTY_REPLY}))  # APIs reject an empty one
        return reply

    def _stream(self, tools: list[dict] | None, sampling: dict | None):
        """The model's stream; a model that declares `one_block_per_reply` is stopped, in
        fenced mode, at the end of the reply's first block that runs: what it writes after a
        block, before seeing the block's output, is made up."""
        model, payload = self.state.model, self.payload(tools=bool(tools))
        options = {"sampling": sampling} if sampling else {}
        if tools or not getattr(model, "one_block_per_reply", False):
            return model.stream(payload, tools, **options)
        registry = self.state.registry
        return model.stream(payload, tools, until=lambda text: first_block_end(text, registry),
                            **options)

    def _save_partial(self, text: str, note: str) -> None:
        if text:
            self.state.add(Entry({"role": "assistant", "content": f"{text}\n{note}"}))

    def _with_tool_prompt(self, messages: list[dict]) -> list[dict]:
        """The payload with interp's system prompt in its execute-tool form (with the
        AGENTS.md files and skills of the settings, as the other form has them)."""
        state = self.state
        if not messages or messages[0].get("role") != "system" or \
                not state.messages[0].prompt:
            return messages
        prompt = state.config.extend_prompt(system_prompt(
            state.registry.names(), state.config.runner.cwd, state.registry.model_notes(),
            tools=True, shell=shell_of(state.registry)))
        return [dict(messages[0], content=prompt), *messages[1:]]


def calls_as_text(reply: Reply) -> Reply:
    """A reply whose tool calls the server parsed out of its text although no tool was offered
    (llama.cpp does so with some chat templates), with the calls put back into the text as the
    model wrote them: kept in the history, and run (or answered) as calls written as text."""
    written = "\n".join(f"<tool_call>\n{json.dumps({'name': c.name, 'arguments': _loaded(c.arguments)})}"
                        f"\n</tool_call>" for c in reply.tool_calls)
    text = f"{reply.text.rstrip()}\n{written}" if reply.text.strip() else written
    return replace(reply, text=text, tool_calls=())


def _loaded(arguments: str):
    """Arguments as the JSON value they spell, or the text when they spell none."""
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def _assistant_message(reply: Reply) -> dict:
    message: dict = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:  # arguments cut off mid-JSON are stored repaired: APIs reject them
        message["tool_calls"] = [{"id": c.id, "type": "function",
                                  "function": {"name": c.name,
                                               "arguments": valid_arguments(c.arguments)}}
                                 for c in reply.tool_calls]
    return message
