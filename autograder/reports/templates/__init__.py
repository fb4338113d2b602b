"""Jinja2 templates of the reports (data files, no code)."""
