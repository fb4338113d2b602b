HINT = "Positions kept by the residual connection must be traced further down too: at every layer, follow the heads of every position reached so far."


def receptive_field(attended, position):
    reached = frontier = {int(position)}
    for layer in reversed(list(attended)):
        keys = [[int(j) for j in row] for row in layer]
        frontier = {j for t in frontier for j in keys[t]}
        reached = reached | frontier
    return reached
