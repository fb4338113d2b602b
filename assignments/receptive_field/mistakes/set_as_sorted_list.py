HINT = "receptive_field should return a set of ints, not a list."


def receptive_field(attended, position):
    reached = {int(position)}
    for layer in reversed(list(attended)):
        keys = [[int(j) for j in row] for row in layer]
        reached = reached | {j for t in reached for j in keys[t]}
    return sorted(reached)
