"""Autograder for the attention homework: sandboxed grading, otter packaging, reports."""

__version__ = "1.0.0"
