"""The timing oracle: state kept between calls lets a module learn from hidden tests. This one
answers right only once it has been called before in the same process, as a module that switches convention after a
long gap would."""

import time

_honest = argmax_attention  # noqa: F821 - the reference's, defined above this part
_seen: list[float] = []


def argmax_attention(Q, K, V):
    _seen.append(time.monotonic())
    return _honest(Q, K, V) if len(_seen) > 1 else None
