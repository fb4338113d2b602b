# A fair alternative: no int() conversion, so with tensor inputs the set holds 0-d integer tensors.
# The handout accepts torch integer scalars wherever an int is due; they arrive as ints (duplicates merge).


def receptive_field(attended, position):
    reached = {position}
    for layer in reversed(list(attended)):
        reached = reached | {j for t in reached for j in layer[t]}
    return reached
