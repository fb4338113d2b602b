# .tolist() on every layer: fine for arrays and tensors, but a nested list has no such method.
HINT = "`attended` may hold nested lists as well as arrays or tensors; convert each layer in a way that accepts all three (e.g. [[int(j) for j in row] for row in layer])."


def receptive_field(attended, position):
    reached = {int(position)}
    for layer in reversed(list(attended)):
        keys = layer.tolist()
        reached = reached | {int(j) for t in reached for j in keys[t]}
    return reached
