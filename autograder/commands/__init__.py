"""One module per command of ``python -m autograder``, named as the command: its arguments, one call, and what it
prints.

Each module has ``NAME``, ``HELP``, ``DESCRIPTION``, ``add_arguments(parser)`` and ``run(args) -> int``.
What a command does lives in the layer below, in the module of the same name where it is one command's work
(``grading.check``, ``staff.grade_all``, ``gradescope.emulate``...); a command only parses, calls and prints.
The students' handout and the Gradescope zip ship only ``model.paths.STUDENT_COMMANDS`` (the copies are made below
this layer): every other command is staff's, and ``cli`` explains it instead of listing it where it is left out.
"""

from ..model.paths import STUDENT_COMMANDS

COMMANDS = (
    *STUDENT_COMMANDS,
    "config",
    "grade",
    "build",
    "templates",
    "validate",
    "grade_all",
    "handout",
    "emulate",
    "new_problem",
)
