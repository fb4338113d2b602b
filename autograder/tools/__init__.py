"""Small staff utilities run as ``python -m autograder.tools.<name>``."""
