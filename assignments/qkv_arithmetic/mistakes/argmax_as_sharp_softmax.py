# Hard attention approximated by a very sharp softmax (scores times 1000): the output mixes in the
# values of keys whose scores come close to the best, and averages tied keys.
HINT = "argmax_attention returns exactly the value of the single best key; a softmax with a large scale only approximates that."


def argmax_attention(Q, K, V):
    return softmax_attention(Q, K, V, scale=1000.0)
