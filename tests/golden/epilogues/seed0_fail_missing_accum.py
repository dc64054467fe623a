# First seed, failure example: no accumulator parameter.
def fail_missing_accum(alpha, beta, C):
    D = C * beta
    return D
