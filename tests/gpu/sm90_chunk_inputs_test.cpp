// The sm90 epilogue's per-chunk input addressing against cpu_reference, on
// every tile configuration, with both full tiles (the unchecked path) and
// ragged edge tiles: row, column and tile inputs with unit and strided axes,
// per batch and shared by it, offset from their allocation; tile outputs
// stored directly (by pairs, aligned or not, and strided); and the
// benchmark's epilogues (gelu's chunks staged in a loop) on full tiles.
#include "gpu/sm90_problem.hpp"

namespace epigemm::testing {
namespace {

class Sm90ChunkInputs : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};
};

std::string describe(const detail::Sm90TileConfig& c, std::int64_t L, std::int64_t M, std::int64_t N,
                     std::int64_t K) {
  return "tile " + c.shape_name() + ", L M N K " + std::to_string(L) + " " + std::to_string(M) + " " +
         std::to_string(N) + " " + std::to_string(K);
}

TEST_F(Sm90ChunkInputs, RowColumnAndTileInputsOnFullAndEdgeTiles) {
  // M and N hold two full 128x256 tiles and a ragged one; every input kind
  // both with a unit step along its axis and strided, in four dtypes.
  EPIGEMM_REQUIRE_SM90(driver);
  const std::int64_t L = 2, M = 2 * 128 + 45, N = 2 * 256 + 38, K = 40;
  for (const detail::Sm90TileConfig& config : bits16_tile_configs()) {
    SCOPED_TRACE(describe(config, L, M, N, K));
    GpuProblem p(*driver, rng);
    add_padded_ab(p, DType::bf16, DType::bf16, L, M, N, K);
    p.fill_normal("A");
    p.fill_normal("B", 0.25);
    p.set_source(
        "def epi(accum, alpha, rb, cb, rs, cs, T, S):\n"
        "    D = accum * alpha + rb + cb + 0.5 * rs - 0.25 * cs + T * S\n"
        "    return D\n");
    p.scalar("alpha", 0.75);
    p.add("rb", DType::bf16, {N}, {}, false, 2);                      // row, unit
    p.add("cb", DType::f16, {L, M, 1}, {}, false, 4);                 // column per batch, unit
    p.add("rs", DType::f32, {L, 1, N}, {3 * N + 1, 3 * N, 3});        // row per batch, strided
    p.add("cs", DType::bf16, {M, 1}, {2, 1}, false, 6);               // column, strided
    p.add("T", DType::f32, {L, M, N}, {}, false, 4);                  // tile, unit (not staged: f32)
    p.add("S", DType::bf16, {M, N}, {1, M});                          // tile shared by the batch, strided
    p.add("D", DType::bf16, {L, M, N}, padded_rows(DType::bf16, {L, M, N}), true);
    for (const char* name : {"rb", "cb", "rs", "cs", "T", "S"}) p.fill_normal(name);
    run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
  }
}

TEST_F(Sm90ChunkInputs, TileOperandsReadAndStoredInPairsOnFullAndEdgeTiles) {
  // Tile inputs the threads read an even column and its neighbour at a
  // time (Q, P, R, W: 2, 1, 4 and 8 bytes, aligned to a pair; C, of D's
  // size, is staged where the tile's slots hold it), beside ones read
  // element by element (Q2: rows an odd number of elements apart, so every
  // other row starts mid-pair; R2: its pointer one element past a pair);
  // output F stored by aligned pairs, G (rows an odd number of elements
  // apart) by pairs where one turns out aligned. N is odd, so each row's
  // last pair straddles D's edge; unrolled and looped chunks.
  EPIGEMM_REQUIRE_SM90(driver);
  const std::int64_t L = 2, M = 2 * 128 + 45, N = 2 * 256 + 37, K = 40;
  for (const bool gelu : {false, true}) {
    for (const detail::Sm90TileConfig& config : bits16_tile_configs()) {
      SCOPED_TRACE(std::string(gelu ? "gelu, " : "") + describe(config, L, M, N, K));
      GpuProblem p(*driver, rng);
      add_padded_ab(p, DType::bf16, DType::bf16, L, M, N, K);
      p.fill_normal("A");
      p.fill_normal("B", 0.25);
      p.set_source(std::string("def epi(accum, C, Q, P, R, W, Q2, R2):\n    X = ") +
                   (gelu ? "gelu(accum)" : "accum") +
                   "\n    D = X + C + Q * P + 0.5 * R - W + Q2 * R2\n    F = D - X\n    G = X * 0.25\n"
                   "    return D, F, G\n");
      // Rows (and batches) an even number of elements apart, but for Q2 and R2.
      const Dims tile{L, M, N}, even{M * (N + 1), N + 1, 1}, odd{M * N, N, 1};
      p.add("C", DType::bf16, tile, padded_rows(DType::bf16, tile));
      p.add("Q", DType::f16, tile, even);
      p.add("P", DType::i8, tile, even);
      p.add("R", DType::f32, tile, even);
      p.add("W", DType::f64, tile, even);
      p.add("Q2", DType::f16, tile, odd);
      p.add("R2", DType::f32, tile, even, false, 4);
      for (const char* name : {"C", "Q", "R", "W", "Q2", "R2"}) p.fill_normal(name);
      p.add("D", DType::bf16, tile, padded_rows(DType::bf16, tile), true);
      p.add("F", DType::f32, tile, even, true);
      p.add("G", DType::e4m3, tile, odd, true);
      run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
      const Operator op = sm90_candidates(p, DType::f32, DType::f32, pin_config(config)).front().op;
      const std::string source = op.generated_source(p.args(true, DType::f32, DType::f32));
      for (const char* expected :
           {"Q (read by the threads in pairs)", "P (read by the threads in pairs)", "R (read by the threads in pairs)",
            "W (read by the threads in pairs)", "Q2 (read by the threads)", "R2 (read by the threads)",
            "F (stored by the threads in pairs)", "G (stored by the threads)"}) {
        EXPECT_NE(source.find(expected), std::string::npos) << expected << " in\n" << source.substr(0, 600);
      }
    }
  }
}

TEST_F(Sm90ChunkInputs, TileOutputsStoredDirectlyOnFullAndEdgeTiles) {
  // Outputs besides D that do not go through the staging slots: F of
  // another element size (stored by pairs, offset by one element so that
  // the pairs are not aligned), G strided, and both behind gelu (chunks in a loop).
  EPIGEMM_REQUIRE_SM90(driver);
  const std::int64_t L = 2, M = 2 * 128 + 45, N = 2 * 256 + 38, K = 40;
  for (const bool gelu : {false, true}) {
    for (const std::size_t f_offset : {std::size_t{0}, std::size_t{4}}) {
      for (const detail::Sm90TileConfig& config : bits16_tile_configs()) {
        SCOPED_TRACE(std::string(gelu ? "gelu" : "relu") + ", F offset " + std::to_string(f_offset) + ", " +
                     describe(config, L, M, N, K));
        GpuProblem p(*driver, rng);
        add_padded_ab(p, DType::bf16, DType::bf16, L, M, N, K);
        p.fill_normal("A");
        p.fill_normal("B", 0.25);
        p.set_source(std::string("def epi(accum, alpha, C):\n    F = accum * alpha + C * 2.0\n    D = ") +
                     (gelu ? "gelu(F)" : "relu(F)") + "\n    G = F - accum\n    return D, F, G\n");
        p.scalar("alpha", 0.625);
        const Dims out{L, M, N};
        p.add("C", DType::bf16, out, padded_rows(DType::bf16, out));
        p.fill_normal("C");
        p.add("D", DType::bf16, out, padded_rows(DType::bf16, out), true);
        p.add("F", DType::f32, out, {}, true, f_offset);
        p.add("G", DType::f16, out, {M * N, 1, M}, true);
        run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
      }
    }
  }
}

TEST_F(Sm90ChunkInputs, BenchmarkEpiloguesOnFullTiles) {
  // The epilogues bench/ times (alpha/beta with C, relu with C and F, gelu
  // with a row bias, two biases), bf16, on full tiles of every configuration
  // (one ragged edge on each axis as well).
  EPIGEMM_REQUIRE_SM90(driver);
  struct Case {
    const char* source;
    std::vector<std::pair<const char*, OperandShape>> inputs;
    bool f_out;
  };
  using S = OperandShape;
  const Case cases[] = {
      {"def epi(accum, alpha, beta, C):\n    D = alpha * accum + beta * C\n    return D\n", {{"C", S::tile}}, false},
      {"def epi(accum, alpha, C):\n    F = accum * alpha + C * 2.0\n    D = relu(F)\n    return D, F\n",
       {{"C", S::tile}},
       true},
      {"def epi(accum, bias):\n    D = gelu(accum + bias)\n    return D\n", {{"bias", S::row}}, false},
      {"def epi(accum, alpha, row_bias, col_bias):\n    D = accum * alpha + row_bias + col_bias\n    return D\n",
       {{"row_bias", S::row}, {"col_bias", S::column}},
       false},
  };
  const std::int64_t L = 1, M = 512 + 64 + 7, N = 512 + 16 + 3, K = 64;
  for (const Case& c : cases) {
    for (const detail::Sm90TileConfig& config : bits16_tile_configs()) {
      SCOPED_TRACE(std::string(c.source) + describe(config, L, M, N, K));
      GpuProblem p(*driver, rng);
      add_padded_ab(p, DType::bf16, DType::bf16, L, M, N, K);
      p.fill_normal("A");
      p.fill_normal("B", 0.25);
      p.set_source(c.source);
      const std::string source = c.source;
      if (source.find("alpha") != std::string::npos) p.scalar("alpha", 1.25);
      if (source.find("beta") != std::string::npos) p.scalar("beta", -0.5);
      for (const auto& [name, shape] : c.inputs) {
        const Dims dims = operand_dims(shape, L, M, N);
        p.add(name, DType::bf16, dims, shape == S::tile ? padded_rows(DType::bf16, dims) : Dims{});
        p.fill_normal(name);
      }
      const Dims out{L, M, N};
      p.add("D", DType::bf16, out, padded_rows(DType::bf16, out), true);
      if (c.f_out) p.add("F", DType::bf16, out, padded_rows(DType::bf16, out), true);
      run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
    }
  }
}

}  // namespace
}  // namespace epigemm::testing
