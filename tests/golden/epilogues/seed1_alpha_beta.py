# Second seed: D = accum * alpha + C * beta + X * x_factor, the accumulator kept as Y.
def epilogue_operation(accum, C, X, alpha, beta, x_factor):
    Y = accum
    D = accum * alpha + C * beta + X * x_factor
    return D, Y
