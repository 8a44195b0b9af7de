"""Tokens and cost in one line, as aider shows them after each reply and at exit."""

from __future__ import annotations

import math
from dataclasses import dataclass


def tokens(count: int) -> str:
    """850, 1.2k, 12k, 1.5M."""
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{round(count / 1000)}k"
    return f"{count / 1_000_000:.1f}M"


def money(cost: float) -> str:
    """$0.03, $0.0012: two significant decimals for small amounts."""
    if cost <= 0:
        return "$0.00"
    if cost >= 0.01:
        return f"${cost:.2f}"
    return f"${cost:.{max(2, 2 - int(math.log10(cost)))}f}"


@dataclass
class Tally:
    """Tokens and cost added up over replies."""

    sent: int = 0
    received: int = 0
    cost: float = 0.0
    cost_known: bool = True
    replies: int = 0

    def add(self, usage: dict | None, cost: float | None) -> None:
        """Count one reply (turn.completed's `usage` and `cost`)."""
        self.replies += 1
        if usage:
            self.sent += int(usage.get("prompt_tokens") or 0)
            self.received += int(usage.get("completion_tokens") or 0)
        if cost is None:
            self.cost_known = False
        else:
            self.cost += cost


def reply_line(usage: dict | None, cost: float | None, session: Tally) -> str:
    """`Tokens: 1.2k sent, 85 received. Cost: $0.0012 message, $0.03 session.`"""
    if not usage:
        head = "Tokens: not reported by the model."
    else:
        head = (f"Tokens: {tokens(int(usage.get('prompt_tokens') or 0))} sent, "
                f"{tokens(int(usage.get('completion_tokens') or 0))} received.")
    if cost is None:
        return f"{head} Cost unknown."
    total = f"{money(session.cost)} session" if session.cost_known else "session unknown"
    return f"{head} Cost: {money(cost)} message, {total}."


def session_line(sent: int, received: int, cost: float, cost_known: bool) -> str:
    """`Session: 12k tokens sent, 1.1k received, cost $0.03.`"""
    price = f"cost {money(cost)}" if cost_known else "cost unknown"
    return f"Session: {tokens(sent)} tokens sent, {tokens(received)} received, {price}."


def compacted_line(data: dict) -> str:
    """The one line that says a conversation was compacted (context.compacted's fields)."""
    before, after, window = data.get("tokens_before"), data.get("tokens_after"), data.get("window")
    share = f", {after / window:.0%} of the window" if window and isinstance(after, int) else ""
    how = "Context was getting full: compacted" if data.get("auto") else "Compacted"
    focus = f", focused on {data['focus']!r}" if data.get("focus") else ""
    return (f"{how} the conversation: {data.get('summarized')} earlier messages summarised by "
            f"the model{focus} ({tokens(before or 0)} → {tokens(after or 0)} tokens{share}); "
            f"the full history is kept.")


def context_line(used: int, window: int | None, share: float | None) -> str:
    """/tokens: how full the context is, and where it is compacted."""
    if not window:
        return f"Context now: {used:,} tokens (the model's context window is not known)."
    at = f"; compacted at {share:.0%}" if share else "; never compacted automatically"
    return f"Context now: {used:,} of {window:,} tokens ({used / window:.0%} full{at})."
