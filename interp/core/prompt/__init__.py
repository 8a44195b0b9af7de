"""What the model is sent: the system prompt (`system_prompt`) with the AGENTS.md files
(`instructions`), the conversation trimmed to the context window (`payload`, `context`),
figures as images (`vision`, `png`), and compaction's summary (`compaction`, `summary`)."""
