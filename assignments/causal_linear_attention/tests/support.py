"""Helpers shared by the public and hidden tests of problem 6 (causal_linear_attention)."""

import numpy as np

from autograder.testkit import Call, expect_linear_in_tokens, fail, randn, tensor


def run_recurrent(module, Q, K, V, **kwargs):
    """Feed the tokens one by one through the student's recurrent_step, each step from the expected state of the tokens
    before it: no call's inputs come from the student's own outputs (a state in another dtype would make inputs whose
    expected value was never recorded), and each step is judged on its own."""
    return run_alternately(module, [(Q, K, V)], **kwargs)[0]


def run_alternately(module, sequences, **kwargs):
    """Decode several sequences (each a (Q, K, V) of the same number of tokens) at once, as a server does: token i of
    each sequence in turn, then token i + 1 of each, every step given its own sequence's expected state. A recurrent_step
    that continues from sums it kept itself (a global, a default argument) rather than from the state it is given then
    continues from another sequence's tokens. Returns the rows of each sequence."""
    states, rows = [None] * len(sequences), [[] for _ in sequences]
    n = sequences[0][0].shape[-2]
    for i in range(n):
        for s, (Q, K, V) in enumerate(sequences):
            call = Call(module.recurrent_step, states[s], Q[..., i, :], K[..., i, :], V[..., i, :], **kwargs)
            try:
                out, _ = call.matches_reference()
            except AssertionError as exc:  # a wrong value, or the call itself failed
                if len(sequences) == 1:
                    where = f"At token {i} of {n} (counting from 0, starting from state None, each step given the expected state)"
                else:
                    where = (f"At token {i} of {n} of sequence {s} of {len(sequences)} (counting from 0; {len(sequences)} sequences "
                             "decoded together, one token of each in turn, each step given its own sequence's expected state, "
                             "None at its first token)")
                fail(f"{where}:\n{exc}")
                raise  # while the student's calls are only recorded, fail() does not stop the test: this does
            _, (S, Z) = call.reference()
            states[s] = (tensor(np.asarray(S)), tensor(np.asarray(Z)))
            rows[s].append(np.asarray(out))
    return [np.stack(r, axis=-2) for r in rows]


def expect_linear_cost(module, first_seed, long=True):
    """causal_linear_attention's cost must grow linearly in N (testkit/scaling.py). The inputs have two feature columns
    and 64 value columns, so that a loop that re-sums all earlier keys for each query pays N^2 (C + M) / 2 and the linear
    forms N x C x M; the public and hidden tests draw from seeds of their own."""

    def inputs(n):
        return tuple(randn(n, cols, seed=first_seed + i) for i, cols in enumerate((2, 2, 64)))

    # No capped call at 16384 tokens (testkit/scaling.py): with two feature columns, numpy's blocks of queries against
    # earlier keys cost less there than a fair per-token loop, so a cap cannot tell them apart (docs/threat_model.md).
    expect_linear_in_tokens(module.causal_linear_attention, inputs, never="sum over all earlier keys for every query",
                            instead="carry the running sums S_i and Z_i from one token to the next", long=long)
