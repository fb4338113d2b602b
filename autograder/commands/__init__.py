"""One module per command of ``python -m autograder``: its arguments, and what it prints.

Each module has ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``. The
mechanisms they share (grading, batch, build, handout, validation) live beside this package.
The students' handout leaves the staff commands out; ``cli`` then explains instead.
"""

COMMANDS = ("check", "grade", "build", "templates", "validate", "grade_all", "handout", "emulate")
