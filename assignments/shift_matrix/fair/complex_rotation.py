# A fair alternative: each (sin, cos) pair is the complex number cos + i sin = exp(i w t), and a shift
# multiplies it by exp(i w delta); the real matrix is read off that complex product.
import torch


def _frequencies(d, base):
    if d % 2:
        raise ValueError("d must be even")
    return base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    z = torch.polar(torch.ones(T, d // 2, dtype=torch.float64), torch.arange(T, dtype=torch.float64)[:, None] * _frequencies(d, base))
    return torch.stack([z.imag, z.real], dim=-1).reshape(T, d).to(dtype)


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    r = torch.exp(1j * delta * _frequencies(d, base).to(torch.complex128))
    # (cos + i sin) * (a + i b) = (cos a - sin b) + i (sin a + cos b), with a = Re r, b = Im r
    M = torch.zeros(d, d, dtype=torch.float64)
    for k in range(d // 2):
        a, b = r[k].real, r[k].imag
        M[2 * k, 2 * k], M[2 * k, 2 * k + 1] = a, b
        M[2 * k + 1, 2 * k], M[2 * k + 1, 2 * k + 1] = -b, a
    return M.to(dtype)
