"""Storage: saved conversations (JSONL) and exports (Markdown, notebook, JSON)."""
