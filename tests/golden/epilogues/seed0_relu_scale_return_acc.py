# First seed: keyword functions and returning the accumulator.
def relu_scale_return_acc(accum, alpha, beta, C, scale):
    F = relu((accum * alpha) + (C * beta))
    D = F * scale
    return D, F, accum
