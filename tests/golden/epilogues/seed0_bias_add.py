# First seed: a row bias (N,) and a column bias (M, 1); the shapes decide.
def bias_add(accum, row_bias, col_bias):
    D = accum + row_bias + col_bias
    return D
