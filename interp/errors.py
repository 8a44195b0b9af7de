"""Small exception classes shared across the app."""


class UsageError(Exception):
    """The command line asked for something that cannot be done; exit status 2."""
