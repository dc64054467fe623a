# Constants folded, a repeated subexpression merged, a dead value dropped,
# comparisons, powers, casts and clamp.
def epi(accum, C):
    two = 1.0 + 1.0
    unused = exp(C)
    x = accum * two + accum * two
    y = clamp(x, -4.0, 4.0) ** 2
    D = where(x >= 0, to_e4m3(y), -y)
    return D
