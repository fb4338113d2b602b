HINT = "The residual connection is missing: a position also depends on itself at the layer below, not only on the keys its heads attend to."


def receptive_field(attended, position):
    reached = {int(position)}
    for layer in reversed(list(attended)):
        keys = [[int(j) for j in row] for row in layer]
        reached = {j for t in reached for j in keys[t]}
    return reached
