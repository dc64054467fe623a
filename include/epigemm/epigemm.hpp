// The public API of epigemm in one include.
#pragma once

#include "epigemm/dtype.hpp"
#include "epigemm/epilogue.hpp"
#include "epigemm/error.hpp"
#include "epigemm/gemm.hpp"
#include "epigemm/operator.hpp"
#include "epigemm/tensor.hpp"
#include "epigemm/timing.hpp"
