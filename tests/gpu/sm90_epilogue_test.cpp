// The sm90 provider against cpu_reference on fresh random data, outputs
// poisoned: every seed epilogue, every op, load and store kind, reductions
// (rows, columns, everything; negatives and NaN), several outputs, the
// accumulator returned as it is, every A/B dtype, major, accumulator and
// compute type the kernel takes, every D dtype (fp8 D with its amax), and
// the approximate f32 functions far into their tails; problems of whole
// tiles, whose kernels leave the bounds-checked epilogue out; and clusters
// whose last tile lies past M.
#include "gpu/sm90_problem.hpp"

namespace epigemm::testing {
namespace {

class Sm90Epilogue : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};
  const DTypeCombo kF16{"f16_f32acc", DType::f16, DType::f16, DType::f32, DType::f32};

  /// Prime extents, none a multiple of any tile (M, N) or of the K step.
  std::string run_case(const EpilogueCase& c, const DTypeCombo& combo, std::int64_t L = 2, std::int64_t M = 197,
                       std::int64_t N = 133, std::int64_t K = 71, bool a_k_major = true, bool b_k_major = false,
                       std::function<bool(const OperatorMetadata&)> filter = nullptr) {
    SCOPED_TRACE(c.name + " with " + combo.name);
    const runtime::Driver& driver = runtime::Driver::require();
    GpuProblem p(driver, rng);
    add_padded_ab(p, combo.a, combo.b, L, M, N, K, a_k_major, b_k_major);
    add_padded_case(p, c, L, M, N);
    return run_sm90_and_compare(p, combo.accumulator, combo.compute, std::move(filter));
  }
};

TEST_F(Sm90Epilogue, EverySeedEpilogueMatchesTheReference) {
  EPIGEMM_REQUIRE_SM90(driver);
  for (const EpilogueCase& c : seed_epilogues()) run_case(c, kF16);
}

TEST_F(Sm90Epilogue, EveryOpLoadKindAndStoreKindMatchesTheReference) {
  EPIGEMM_REQUIRE_SM90(driver);
  for (const EpilogueCase& c : coverage_epilogues()) run_case(c, kF16);
}

TEST_F(Sm90Epilogue, ReductionsOverRowsColumnsAndEverythingOnEveryTile) {
  EPIGEMM_REQUIRE_SM90(driver);
  const EpilogueCase reductions = epilogue_case(coverage_epilogues(), "reductions");
  // One element, one ragged tile, and a batch over several tiles of each shape.
  run_case(reductions, kF16, 1, 1, 1, 5);
  run_case(reductions, kF16, 1, 64, 64, 16);
  for (const detail::Sm90TileConfig& config : bits16_tile_configs()) {
    SCOPED_TRACE("tile " + config.shape_name());
    run_case(reductions, kF16, 3, 331, 283, 19, true, false, pin_config(config));
  }
}

TEST_F(Sm90Epilogue, ProblemsOfWholeTilesOnEveryTile) {
  // M and N multiples of the tile's: kernels without the bounds-checked copy
  // of the epilogue (sm90_tile_kinds), with a staged input and output, row
  // and column vectors, and reductions of every kind.
  EPIGEMM_REQUIRE_SM90(driver);
  const EpilogueCase cases[] = {epilogue_case(seed_epilogues(), "relu_aux_store"),
                                epilogue_case(seed_epilogues(), "bias_add"),
                                epilogue_case(coverage_epilogues(), "reductions")};
  for (const detail::Sm90TileConfig& config : bits16_tile_configs()) {
    SCOPED_TRACE("tile " + config.shape_name());
    for (const EpilogueCase& c : cases)
      run_case(c, kF16, 2, 2 * config.bm, 2 * config.bn, 48, true, false, pin_config(config));
  }
}

TEST_F(Sm90Epilogue, ClustersWhoseLastTilePairEndsPastM) {
  // 2x1 clusters over one or three tile rows of whole tiles: the last
  // cluster's second tile lies wholly past M. It runs the main loop for B's
  // multicast; its epilogue must read no vector element, write no output and
  // add nothing to a reduction there (sm90_tile_kinds gives it the checked
  // copy). Its accumulators are 0 there, so counts show what a sum or
  // maximum of values would hide: each column's row count and the element
  // count must come out exact. With a column vector, and a tile output the
  // threads store beside D.
  EPIGEMM_REQUIRE_SM90(driver);
  for (const detail::Sm90TileConfig& config : bits16_tile_configs()) {
    if (config.cluster_m == 1) continue;
    for (const std::int64_t rows : {1, 3}) {
      const std::int64_t M = rows * config.bm, N = 2 * config.bn, K = 48;
      SCOPED_TRACE("tile " + config.shape_name() + ", M " + std::to_string(M));
      GpuProblem p(*driver, rng);
      add_padded_ab(p, DType::f16, DType::f16, 1, M, N, K);
      p.set_source(
          "def epi(accum, col):\n    D = accum + col\n    E = D * 2.0\n    rows = sum(accum * 0.0 + 1.0)\n"
          "    n = sum(accum * 0.0 + 1.0)\n    top = max(D)\n    return D, E, rows, n, top\n");
      p.add("col", DType::f16, {M, 1});
      p.add("D", DType::f16, {1, M, N}, padded_rows(DType::f16, {1, M, N}), true);
      p.add("E", DType::f32, {1, M, N}, {}, true);
      p.add("rows", DType::f32, {N}, {}, true);
      p.add("n", DType::f32, {1}, {}, true);
      p.add("top", DType::f32, {N}, {}, true);
      run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
      EXPECT_EQ(got_value(p, "n"), static_cast<double>(M * N));
    }
  }
}

TEST_F(Sm90Epilogue, ReductionOfABatchIntoOneRowVector) {
  // (M, 1) for a batch of 3: the row sums reduce over the batch too.
  EPIGEMM_REQUIRE_SM90(driver);
  GpuProblem p(*driver, rng);
  const std::int64_t L = 3, M = 150, N = 21, K = 9;
  add_padded_ab(p, DType::bf16, DType::bf16, L, M, N, K);
  p.set_source("def epi(accum):\n    D = accum\n    s = sum(accum)\n    m = max(accum)\n    return D, s, m\n");
  p.add("D", DType::f32, {L, M, N}, padded_rows(DType::f32, {L, M, N}), true);
  p.add("s", DType::f32, {M, 1}, {}, true);
  p.add("m", DType::f32, {N}, {}, true);
  run_sm90_and_compare(p);
}

TEST_F(Sm90Epilogue, NegativeAndNaNValuesInMaxMinAndAmax) {
  // relu(x) - 3 makes many negatives; log of a negative makes NaN in some rows.
  EPIGEMM_REQUIRE_SM90(driver);
  GpuProblem p(*driver, rng);
  const std::int64_t M = 140, N = 264, K = 7;
  add_padded_ab(p, DType::f16, DType::f16, 1, M, N, K);
  p.set_source(
      "def epi(accum, c):\n    D = accum - 3.0\n    n = log(c + 2.5)\n    mx = max(D)\n    mn = min(D)\n"
      "    am = amax(D)\n    nm = max(n * D)\n    return D, mx, mn, am, nm\n");
  p.add("c", DType::f32, {M, 1}, {}, false, 0, -4, 2);
  p.add("D", DType::f32, {1, M, N}, {}, true);
  p.add("mx", DType::f32, {1, M, 1}, {}, true);
  p.add("mn", DType::f32, {1, 1, N}, {}, true);
  p.add("am", DType::f32, {1}, {}, true);
  p.add("nm", DType::f32, {1, M, 1}, {}, true);
  run_sm90_and_compare(p);
}

TEST_F(Sm90Epilogue, ApproximateF32FunctionsHoldTheirBoundsFarIntoBothTails) {
  // In f32, sigmoid, silu, gelu and gelu_tanh are built on the hardware's
  // approximate ex2 and reciprocal, and `/` is div.full; x ~ N(0, 20^2)
  // reaches |x| = 60 and more, where a naive form loses its digits or
  // overflows, and values near 0, where the relative bound is tightest.
  // With gelu the chunks run in a loop; without it they are inlined.
  EPIGEMM_REQUIRE_SM90(driver);
  const std::int64_t M = 130, N = 72, K = 8;
  for (const bool with_gelu : {true, false}) {
    SCOPED_TRACE(with_gelu ? "with gelu" : "without gelu");
    GpuProblem p(*driver, rng);
    add_padded_ab(p, DType::bf16, DType::bf16, 1, M, N, K);
    p.set_source(std::string("def epi(accum, x):\n    D = sigmoid(x)\n    s = silu(x)\n    t = gelu_tanh(x)\n") +
                 "    q = accum / x\n" + (with_gelu ? "    g = gelu(x)\n    return D, s, t, q, g\n" : "    return D, s, t, q\n"));
    p.add("x", DType::f32, {1, M, N});
    p.fill_normal("x", 20.0);
    for (const char* out : {"D", "s", "t", "q", "g"}) {
      if (with_gelu || out[0] != 'g') p.add(out, DType::f32, {1, M, N}, {}, true);
    }
    run_sm90_and_compare(p);
  }
}

TEST_F(Sm90Epilogue, OperandMajorsAndDTypesMatchTheReference) {
  EPIGEMM_REQUIRE_SM90(driver);
  const EpilogueCase with_accum = epilogue_case(seed_epilogues(), "relu_scale_return_acc");
  const EpilogueCase reductions = epilogue_case(coverage_epilogues(), "reductions");
  for (const DType ab : {DType::f16, DType::bf16}) {
    const DTypeCombo combo{std::string(to_string(ab)), ab, ab, DType::f32, DType::f32};
    for (int majors = 0; majors < 4; ++majors) {
      SCOPED_TRACE("A " + std::string(majors & 1 ? "row" : "column") + "-major, B " +
                   (majors & 2 ? "column" : "row") + "-major");
      run_case(with_accum, combo, 2, 150, 77, 45, majors & 1, majors & 2);
    }
  }
  // f16 accumulators (the f32 sum rounded once) and f16/bf16 compute.
  run_case(with_accum, {"f16_f16acc", DType::f16, DType::f16, DType::f16, DType::f32}, 2, 37, 70, 29);
  run_case(reductions, {"f16_f16acc", DType::f16, DType::f16, DType::f16, DType::f32}, 1, 50, 23, 17);
  run_case(with_accum, {"f16_compute_f16", DType::f16, DType::f16, DType::f32, DType::f16}, 2, 37, 70, 29);
  run_case(reductions, {"bf16_compute_bf16", DType::bf16, DType::bf16, DType::f32, DType::bf16}, 1, 50, 23, 17);
}

TEST_F(Sm90Epilogue, Fp8OperandsMatchTheReference) {
  EPIGEMM_REQUIRE_SM90(driver);
  const EpilogueCase with_accum = epilogue_case(seed_epilogues(), "relu_scale_return_acc");
  const EpilogueCase reductions = epilogue_case(coverage_epilogues(), "reductions");
  const DTypeCombo combos[] = {{"e4m3", DType::e4m3, DType::e4m3, DType::f32, DType::f32},
                               {"e4m3_e5m2", DType::e4m3, DType::e5m2, DType::f32, DType::f32},
                               {"e5m2_f16acc", DType::e5m2, DType::e5m2, DType::f16, DType::f32}};
  for (const DTypeCombo& combo : combos) {
    // fp8 needs both operands K-major: A row-major, B column-major.
    run_case(with_accum, combo, 2, 131, 90, 150, true, true);
    run_case(reductions, combo, 1, 77, 45, 33, true, true);
  }
  for (const detail::Sm90TileConfig& config : detail::sm90_tile_configs()) {
    // K = 300 is not whole k-blocks, which the grouped-k tiles need (sm90_grouped_k_test.cpp).
    if (config.operands != detail::Sm90OperandClass::fp8 || config.k_group > 1) continue;
    SCOPED_TRACE("tile " + config.shape_name());
    run_case(with_accum, combos[0], 2, 331, 283, 300, true, true, pin_config(config));
  }
}

TEST_F(Sm90Epilogue, OutputDTypesOfD) {
  EPIGEMM_REQUIRE_SM90(driver);
  for (const DType d : {DType::f16, DType::bf16, DType::f32}) {
    for (const detail::Sm90TileConfig& config : bits16_tile_configs()) {
      SCOPED_TRACE("D " + std::string(to_string(d)) + ", tile " + config.shape_name());
      GpuProblem p(*driver, rng);
      const std::int64_t L = 2, M = 141, N = 300, K = 40;
      add_padded_ab(p, DType::bf16, DType::bf16, L, M, N, K);
      p.set_source("def epi(accum, alpha, bias):\n    D = relu(accum * alpha + bias)\n    return D\n");
      p.scalar("alpha", 0.75);
      p.add("bias", DType::f32, {N});
      p.add("D", d, {L, M, N}, padded_rows(d, {L, M, N}), true);
      run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
    }
  }
}

TEST_F(Sm90Epilogue, Fp8DWithAmaxOnEveryTileMatchesTheReference) {
  // D = accum * scale stored as e4m3 / e5m2 (nearest even, saturated to the
  // largest finite value) and amax = amax(D), which the reference takes
  // before D is rounded. 16-bit and fp8 A/B on every tile configuration;
  // ragged M and N (N % 16 != 0: the edge chunk leaves by thread stores),
  // a batch, tiles that fit exactly, and a scale that saturates D. fp8 A/B
  // run on the tile shapes they have.
  EPIGEMM_REQUIRE_SM90(driver);
  struct Shape {
    std::int64_t L, M, N, K;
    bool saturate;
  };
  const Shape shapes[] = {{2, 197, 333, 150, false}, {1, 256, 512, 64, false}, {1, 5, 20, 33, false},
                          {3, 131, 270, 150, true}};
  for (const DType ab : {DType::bf16, DType::e4m3}) {
    for (const DType d : {DType::e4m3, DType::e5m2}) {
      const double fp8_max = d == DType::e4m3 ? 448.0 : 57344.0;
      for (const detail::Sm90TileConfig& config : bits16_tile_configs()) {
        if (is_fp8(ab) && !fp8_has_shape_of(config)) continue;
        for (const Shape& s : shapes) {
          SCOPED_TRACE("A/B " + std::string(to_string(ab)) + ", D " + std::string(to_string(d)) + ", tile " +
                       config.shape_name() + ", L M N K " +
                       std::to_string(s.L) + " " + std::to_string(s.M) + " " + std::to_string(s.N) + " " +
                       std::to_string(s.K));
          GpuProblem p(*driver, rng);
          // fp8 operands must be K-major: B column-major.
          add_padded_ab(p, ab, ab, s.L, s.M, s.N, s.K, true, is_fp8(ab));
          p.set_source("def epi(accum, scale):\n    D = accum * scale\n    amax = amax(D)\n    return D, amax\n");
          p.add("scale", DType::f32, {1});
          // accum's standard deviation is about sqrt(4K) = 24.5 at K = 150, so
          // with a scale of fp8_max / 30 a good part of D saturates.
          p.operand("scale").host->set({0}, s.saturate ? fp8_max / 30.0 : 0.37);
          p.upload("scale");
          p.add("D", d, {s.L, s.M, s.N}, padded_rows(d, {s.L, s.M, s.N}), true);
          p.add("amax", DType::f32, {1}, {}, true);
          run_sm90_and_compare(p, DType::f32, DType::f32, pin_shape(config));
          const double amax = ir::decode(DType::f32, p.operand("amax").host->ref().data);
          EXPECT_GT(amax, 0.0);
          if (s.saturate) {
            EXPECT_GT(amax, fp8_max) << "the data did not saturate D";
          }
        }
      }
    }
  }
}

TEST_F(Sm90Epilogue, StagedFullTileInputsAndOutputsOnEveryTile) {
  // C has D's element size and rows TMA can load, so the kernel loads it into
  // D's staging slots during the main loop and overwrites it there with D;
  // F of D's size follows D through the slots. C, D and F of the same and of
  // different dtypes (f16 beside bf16, e5m2 beside e4m3), 2-, 4- and 1-byte,
  // and an F of another size (stored directly); C per batch and shared by
  // the batch; ragged M and N, and a one-row problem.
  EPIGEMM_REQUIRE_SM90(driver);
  struct Types {
    DType c, d, f;
  };
  const Types types[] = {{DType::bf16, DType::bf16, DType::bf16}, {DType::f16, DType::bf16, DType::f16},
                         {DType::f32, DType::f32, DType::f32}, {DType::e5m2, DType::e4m3, DType::e5m2},
                         {DType::bf16, DType::bf16, DType::f32}};
  struct Shape {
    std::int64_t L, M, N, K;
    bool shared_c;
  };
  const Shape shapes[] = {{2, 197, 333, 150, false}, {3, 131, 270, 70, true}, {1, 1, 64, 40, false}};
  // Every tile with every shape for the first dtypes; the others on the
  // first shape, on a wide, a mid and a narrow tile.
  for (const Types& t : types) {
    const bool first = &t == &types[0];
    for (const detail::Sm90TileConfig& config : bits16_tile_configs()) {
      if (!first && (config.cluster_m != 1 || config.pingpong || (config.bn != 256 && config.bm != 64))) continue;
      for (const Shape& s : shapes) {
        if (!first && &s != &shapes[0]) continue;
        SCOPED_TRACE("C " + std::string(to_string(t.c)) + ", D " + std::string(to_string(t.d)) + ", F " +
                     std::string(to_string(t.f)) + ", tile " + config.shape_name() + ", L M N K " +
                     std::to_string(s.L) + " " + std::to_string(s.M) + " " + std::to_string(s.N) + " " +
                     std::to_string(s.K));
        GpuProblem p(*driver, rng);
        add_padded_ab(p, DType::bf16, DType::bf16, s.L, s.M, s.N, s.K);
        p.set_source("def epi(accum, alpha, C):\n    F = accum * alpha + C * 2.0\n    D = relu(F)\n    return D, F\n");
        p.scalar("alpha", 0.375);
        const Dims c_dims = s.shared_c ? Dims{s.M, s.N} : Dims{s.L, s.M, s.N};
        const Dims out_dims{s.L, s.M, s.N};
        p.add("C", t.c, c_dims, padded_rows(t.c, c_dims));
        p.add("D", t.d, out_dims, padded_rows(t.d, out_dims), true);
        p.add("F", t.f, out_dims, padded_rows(t.f, out_dims), true);
        run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
      }
    }
  }
}

TEST_F(Sm90Epilogue, Fp8DNextToRowColumnAndWholeReductions) {
  // The reductions case with D stored as e4m3: column partials over 128-column
  // chunks (64 on the 64x128 tile), rows and everything, batch and ragged edges.
  EPIGEMM_REQUIRE_SM90(driver);
  EpilogueCase reductions = epilogue_case(coverage_epilogues(), "reductions");
  for (CatalogOperand& op : reductions.operands) {
    if (op.name == "D") op.dtype = DType::e4m3;
  }
  for (const auto& [bm, bn, cm] : {std::tuple{128, 256, 2}, {128, 128, 1}, {64, 128, 1}}) {
    SCOPED_TRACE("tile " + std::to_string(bm) + "x" + std::to_string(bn) + " c" + std::to_string(cm));
    run_case(reductions, kF16, 3, 331, 283, 19, true, false, pin_tile(bm, bn, cm));
    run_case(reductions, {"e5m2", DType::e5m2, DType::e5m2, DType::f32, DType::f32}, 2, 140, 390, 100, true, true,
             pin_tile(bm, bn, cm));
  }
}

}  // namespace
}  // namespace epigemm::testing
