"""One module per command of ``python -m autograder``: its arguments, one call, and what it prints.

Each module has ``NAME``, ``HELP``, ``DESCRIPTION``, ``add_arguments(parser)`` and ``run(args) -> int``.
What a command does lives in the layer below (``grading``, ``staff``, ``gradescope``); a command only
parses, calls and prints. Commands for everyone sit here, staff commands in ``commands/staff/``, which
the students' handout does not ship (``cli`` then explains instead of listing them).
"""

COMMANDS = (
    "check",
    "submit",
    "staff.config",
    "staff.grade",
    "staff.build",
    "staff.templates",
    "staff.validate",
    "staff.grade_all",
    "staff.handout",
    "staff.emulate",
    "staff.new_problem",
)
