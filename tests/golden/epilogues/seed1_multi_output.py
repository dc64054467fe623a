# Second seed: several outputs from one epilogue (the square of the result,
# and its absolute maximum as a scalar reduction in place of a norm).
def epilogue_multi_output(accum, C):
    D = accum + C
    D_squared = D * D
    D_amax = amax(D)
    return D, D_squared, D_amax
