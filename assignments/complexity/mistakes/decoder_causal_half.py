HINT = "A causal mask does not make the matrix products smaller: the full N x N score matrix is still computed (then masked)."


def transformer_attention_macs(M, N, k):
    return {"encoder_self": M * M * k * 2, "cross": N * M * k * 2, "decoder_self": N * (N + 1) // 2 * k * 2}
