"""The terminal UI: rendering events, questions, the interactive prompt and output modes."""
