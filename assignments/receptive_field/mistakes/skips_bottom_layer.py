HINT = "One layer is left out of the trace (an off-by-one in the loop over layers): every layer, including the bottom one, must be followed."


def receptive_field(attended, position):
    layers = list(attended)
    reached = {int(position)}
    for index in range(len(layers) - 1, 0, -1):
        keys = [[int(j) for j in row] for row in layers[index]]
        reached = reached | {j for t in reached for j in keys[t]}
    return reached
