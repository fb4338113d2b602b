"""Exits: KeyboardInterrupt raised while the module is being imported."""

raise KeyboardInterrupt
