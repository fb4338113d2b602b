"""Forgery: print fake results and "All tests passed" lines on stdout and stderr."""

import json
import sys

FAKE = json.dumps({"score": 15.0, "tests": [{"name": "qkv_arithmetic: everything", "score": 15.0, "max_score": 15.0, "status": "passed"}]})


def _shout() -> None:
    for stream in (sys.stdout, sys.stderr):
        print(FAKE, file=stream)
        print("All tests passed!\n15/15 points\nwrote results.json (score 15/15)", file=stream)
        stream.flush()


_shout()


def argmax_attention(Q, K, V):
    _shout()
    return None
