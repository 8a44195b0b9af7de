"""The model-asking half of the conversation loop: what the model is sent, its streamed reply,
and the tokens it cost (mixed into Session, whose state it uses)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace

from interp.core import events as ev
from interp.core import turns
from interp.core.compaction import view
from interp.core.payload import build_payload, has_images
from interp.core.steps import EXECUTE_TOOL
from interp.core.text import clean_reply
from interp.core.textcalls import valid_arguments
from interp.models.base import HandedOver, ModelError, Reply, Retrying


class ModelTurns:
    """Asking the model for the next reply."""

    def payload(self, tools: bool = False) -> list[dict]:
        """The messages the model is sent next: trimmed to its window, figures attached
        (`tools`: with the system prompt for the execute tool)."""
        history = view(self.messages)  # after a compaction: the summary and what came since
        messages = build_payload(history, self.model,
                                 self._supports_vision() if has_images(history) else False)
        messages = turns.valid_calls(messages)
        return self._with_tool_prompt(messages) if tools else messages

    def _supports_vision(self) -> bool:
        if self._vision is None or self._vision[0] is not self.model:
            self._vision = (self.model, bool(self.model.supports_vision()))
        return self._vision[1]

    def _turn_event(self, turn: int, reply: Reply) -> ev.Event:
        usage = reply.usage
        if usage is not None:
            self.totals.prompt_tokens += usage.prompt_tokens
            self.totals.completion_tokens += usage.completion_tokens
        if usage is None or usage.cost is None:  # a reply without usage has no known cost
            self.totals.cost_known = False
        else:
            self.totals.cost += usage.cost
        return ev.event(ev.TURN_COMPLETED, turn=turn,
                        usage={"prompt_tokens": usage.prompt_tokens,
                               "completion_tokens": usage.completion_tokens} if usage else None,
                        cost=usage.cost if usage else None)

    def _save_partial(self, text: str, note: str) -> None:
        if text:
            self._add({"role": "assistant", "content": f"{text}\n{note}"})

    def _ask(self, turn: int) -> Iterator[ev.Event]:
        if self._compactor.due(self):  # between turns, never among a reply's blocks
            yield from self.compact(auto=True)
        yield ev.event(ev.MODEL_REQUEST, turn=turn, model=self.model.name)
        tools = [EXECUTE_TOOL] if (yield from self._tool_choice()) else None  # may load a model
        reply, parts = None, []
        try:
            for item in self.model.stream(self.payload(tools=bool(tools)), tools):
                if isinstance(item, Reply):
                    reply = item
                elif isinstance(item, Retrying):
                    parts = [] if item.restart else parts
                    yield turns.retry_event(item)
                elif isinstance(item, HandedOver):
                    yield ev.event(ev.MODEL_HANDED_OVER, provider=item.provider,
                                   status=item.status, detail=item.detail, text=item.text)
                else:
                    parts.append(item)
                    yield ev.event(ev.MESSAGE_DELTA, text=item)
                if self._stop_requested:  # stop(): the rest of the reply is not awaited
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
        self._add(_assistant_message(reply) if not turns.is_empty(reply) else
                  {"role": "assistant", "content": turns.EMPTY_REPLY})  # APIs reject an empty one
        return reply


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
