# torch.stack needs at least one layer, so the zero-layer case raises instead of returning {position}.
import torch

HINT = "With zero layers (an empty `attended`) the answer is {position}; torch.stack of an empty list raises."


def receptive_field(attended, position):
    layers = torch.stack([torch.as_tensor(layer).long() for layer in attended])
    reached = {int(position)}
    for layer in reversed(layers):
        reached = reached | {int(j) for t in reached for j in layer[t]}
    return reached
