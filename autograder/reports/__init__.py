"""Renderings of score records: a terminal table, Gradescope's results.json, a CSV row."""
