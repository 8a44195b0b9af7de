"""interp's own clients of the model protocols it speaks (OpenAI chat completions, Anthropic
Messages, Gemini, Ollama), over one HTTP/SSE/NDJSON layer (http.py)."""
