# Second seed: (A @ B + bias) * scale + C + tanh(X), then GELU.
def epilogue_complex(accum, C, X, bias, scale):
    scaled = (accum + bias) * scale
    shifted = scaled + C
    result = shifted + tanh(X)
    D = gelu(result)
    return D
