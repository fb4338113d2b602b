HINT = "The layers are traced in the wrong order: start from the top layer (the last entry) and walk down to the input."


def receptive_field(attended, position):
    reached = {int(position)}
    for layer in attended:
        keys = [[int(j) for j in row] for row in layer]
        reached = reached | {j for t in reached for j in keys[t]}
    return reached
