# First seed: row and column broadcasts in one epilogue, with a scalar.
def broadcast_epilogue(accum, row_bias, col_bias, alpha):
    # row_bias has shape (N,), col_bias (M, 1).
    D = (accum * alpha) + row_bias + col_bias
    return D
