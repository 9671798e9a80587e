"""The error a user sees: one line, exit status 2."""


class CollsimError(Exception):
    """Bad input or an environment problem, reported as one line with exit status 2."""
