HINT = "Only one head is followed: every head of a query attends to its own key, and all of them count."


def receptive_field(attended, position):
    reached = {int(position)}
    for layer in reversed(list(attended)):
        keys = [[int(j) for j in row] for row in layer]
        reached = reached | {keys[t][0] for t in reached if keys[t]}
    return reached
