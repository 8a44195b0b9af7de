"""`python -m interp`."""

from interp.cli.main import main

main()
