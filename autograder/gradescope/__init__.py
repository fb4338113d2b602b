"""Gradescope's container, emulated on this machine: the /autograder layout, a capped cgroup, the zip's entry point."""
