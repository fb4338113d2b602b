HINT = "Only the top layer is traced: the positions it reaches depend in turn on further positions in every layer below."


def receptive_field(attended, position):
    layers = list(attended)
    if not layers:
        return {int(position)}
    return {int(position)} | {int(j) for j in layers[-1][position]}
