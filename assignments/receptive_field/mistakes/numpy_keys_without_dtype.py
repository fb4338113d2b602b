# np.asarray of rows with no heads ([[], [], ...]) is a float array, so the set ends up with floats.
import numpy as np

HINT = "With zero heads the answer is {position}, as a set of ints; np.asarray of empty rows gives floats unless you ask for an integer dtype."


def receptive_field(attended, position):
    reached = np.array([position])
    for layer in list(attended)[::-1]:
        keys = np.asarray(layer)
        reached = np.union1d(reached, keys[reached].ravel())
    return set(reached.tolist())
