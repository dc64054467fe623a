# First seed: alpha and beta with ReLU, two outputs.
def my_epi(accum, alpha, C, beta):
    F = (accum * alpha) + (C * beta)
    D = relu(F)
    return D, F
