# First seed, failure example: no output named D.
def fail_missing_D(accum, alpha, beta, C):
    F = (accum * alpha) + (C * beta)
    return F
