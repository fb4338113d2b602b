HINT = "Return exactly the three keys \"encoder_self\", \"cross\" and \"decoder_self\", nothing more."


def transformer_attention_macs(M, N, k):
    costs = {"encoder_self": softmax_attention_macs(M, M, k, k), "cross": softmax_attention_macs(N, M, k, k),
             "decoder_self": softmax_attention_macs(N, N, k, k)}
    return {**costs, "total": sum(costs.values())}
