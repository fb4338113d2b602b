# A fair alternative: each layer as a 0/1 dependency matrix (identity for the residual, one entry per
# head), multiplied from the top layer down; the receptive field is the nonzero columns of a row.
import numpy as np


def receptive_field(attended, position):
    layers = [np.asarray(layer, dtype=np.int64).reshape(len(layer), -1) for layer in attended]
    if not layers:
        return {int(position)}
    T = layers[0].shape[0]
    reach = np.eye(T, dtype=np.int64)[position]
    for keys in reversed(layers):
        step = np.eye(T, dtype=np.int64)
        for t in range(T):
            step[t, keys[t]] = 1
        reach = np.minimum(reach @ step, 1)
    return {int(j) for j in np.flatnonzero(reach)}
