# Second seed: ReLU written with where, as the activation example does.
def epilogue_with_relu(accum, C, alpha, beta):
    d = accum * alpha + C * beta
    D = where(d > 0, d, 0.0)
    return D
