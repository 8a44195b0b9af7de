"""`python -m interp`."""

from .cli import main

main()
