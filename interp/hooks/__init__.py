"""Hooks: commands from config.toml's `[[hooks.EVENT]]` tables that interp runs at four points,
with JSON on their standard input, their decision as exit status 2 or JSON on standard output
(field and event names as Claude Code's where they mean the same):

- `SessionStart`: a session starts (or resumes, or `/reset` clears it); what they print joins
  the model's context;
- `PreToolUse`: before a block (or an MCP tool call) runs; they may allow it, deny it with a
  reason the model is told, or ask the person;
- `PostToolUse`: after it ran; they see its status, output head and tail and files changed, and
  what they say back goes to the model;
- `Stop`: the model gave its answer; they see it, and may send it back with a reason.

`config.py` reads the tables into typed records, `process.py` runs one command (a time
bound, a bounded capture, an environment without the model's keys), `payloads.py` writes
what each event is given, `replies.py` reads what a command said, and `session.py` puts them
where the session asks: an approver, a block watcher, a reply check, the session start.
Nothing here is imported unless `[hooks]` is configured.
"""
