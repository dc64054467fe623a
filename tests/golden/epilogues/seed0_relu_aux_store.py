# First seed: ReLU with the pre-activation stored, a constant beta of 2.0.
def relu_aux_store(accum, alpha, C):
    F = (accum * alpha) + (C * 2.0)  # Constant beta of 2.0
    D = relu(F)
    return D, F
