# Reductions: the output's shape picks rows, columns or everything.
def epi(accum, bias):
    D = relu(accum + bias)
    row_sum = sum(D)
    col_max = max(D)
    total = amax(accum)
    return D, row_sum, col_max, total
