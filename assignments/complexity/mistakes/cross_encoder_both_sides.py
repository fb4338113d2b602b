HINT = "Cross attention pairs the decoder's positions (queries) with the encoder's (keys and values); it does not use the encoder length on both sides."


def transformer_attention_macs(M, N, k):
    return {"encoder_self": M * M * k * 2, "cross": M * M * k * 2, "decoder_self": N * N * k * 2}
