"""Exits: os._exit() while the module is being imported (no clean-up, no exception)."""

import os

os._exit(3)
