"""The litellm adapter: the one place litellm is imported (lazily, through loader.py)."""
