"""The Jinja2 templates of the HTML reports (data, not code: a folder of the package so that it ships with it)."""
