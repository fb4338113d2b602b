"""Garbage returns: None, a string, a generator."""


def argmax_attention(Q, K, V):
    # The three graded calls have queries of shapes (3, 2), (2, 2) and (2, 3, 5, 4).
    if tuple(Q.shape) == (3, 2):
        return None
    if tuple(Q.shape) == (2, 2):
        return "[[23.0, 46.0]] All tests passed"
    return (row for row in V)
