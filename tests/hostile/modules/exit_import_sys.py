"""Exits: sys.exit() while the module is being imported."""

import sys

sys.exit("All tests passed")
