# Second seed, legacy interface: a plain ReLU epilogue.
def epi(accum):
    D = relu(accum)
    return D
