HINT = "Each attention does two matrix products (scores, then the weighted sum of the values); count both."


def transformer_attention_macs(M, N, k):
    return {"encoder_self": M * M * k, "cross": N * M * k, "decoder_self": N * N * k}
