// The kernel's persistent tile order (kernels/sm90_tile_scheduler.cuh,
// compiled here for the host) on the launch parameters the provider fills
// (sm90_gemm_params, with the tile order's magic-number divisors): every
// tile of every batch once, in groups of rows walked column by column, odd
// groups from the last column back.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <tuple>
#include <utility>

#include "api/problem.hpp"
#include "providers/sm90/sm90_plan.hpp"
#include "providers/sm90/sm90_tensor_maps.hpp"
#include "providers/sm90/sm90_tile_config.hpp"
#include "sm90_tile_scheduler.cuh"

namespace epigemm::testing {
namespace {

using detail::Sm90OperandClass;
using detail::Sm90TileConfig;

/// Every index of the schedule of an L x M x N problem on kBM x kBN tiles in
/// clusters of kClusterM against the documented order, computed with plain
/// divisions, and every tile covered exactly once.
template <int kBM, int kBN, int kClusterM>
void expect_grouped_order(std::int64_t M, std::int64_t N, std::int64_t L) {
  SCOPED_TRACE(::testing::Message() << L << " x " << M << " x " << N << " on " << kBM << "x" << kBN << " c"
                                    << kClusterM);
  const Sm90TileConfig config{kBM, kBN, kClusterM, 4, Sm90OperandClass::bits16};
  detail::Problem problem;
  problem.M = M, problem.N = N, problem.K = 256, problem.L = L;
  const sm90::GemmParams params = detail::sm90_gemm_params(problem, detail::Sm90Plan{}, config);
  const sm90::TileScheduler<kBM, kBN, kClusterM> order(params);

  const int rows = static_cast<int>(((M + kBM - 1) / kBM + kClusterM - 1) / kClusterM);  // cluster rows
  const int cols = static_cast<int>((N + kBN - 1) / kBN);
  const int group = params.group_m, span = group * cols;
  ASSERT_EQ(order.total, rows * cols * L);
  std::set<std::tuple<int, int, int>> seen;
  for (int i = 0; i < order.total; ++i) {
    const int l = i / (rows * cols), r = i % (rows * cols);
    const int first = r / span * group, in = r % span;
    const int group_rows = std::min(group, rows - first);
    const int row = first + in % group_rows, step = in / group_rows;
    const int col = (r / span) % 2 ? cols - 1 - step : step;
    for (int rank = 0; rank < kClusterM; ++rank) {
      const sm90::TileCoord t = order.tile(i, rank);
      ASSERT_EQ(std::tuple(t.l, t.m0, t.n0), std::tuple(l, (row * kClusterM + rank) * kBM, col * kBN))
          << "index " << i << " rank " << rank;
      seen.insert({t.l, t.m0, t.n0});
    }
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(order.total) * kClusterM);
}

TEST(Sm90TileOrder, GroupsOfEightRowsWithAShorterLastGroup) {
  // 20 tile rows: groups of 8, 8 and 4, each walked column by column.
  expect_grouped_order<128, 128, 1>(2560, 3072, 1);
  expect_grouped_order<128, 128, 1>(2500, 3000, 3);
  expect_grouped_order<64, 128, 1>(128, 8192, 1);  // 2 rows: a single short group
  expect_grouped_order<64, 64, 1>(8192, 14336, 1);
  // Last groups of 3, 5 and 7 rows (divisors that are not powers of two).
  expect_grouped_order<64, 64, 1>(704, 4096, 1);
  expect_grouped_order<128, 128, 1>(1664, 2000, 2);
  expect_grouped_order<128, 128, 1>(2944, 9000, 1);
}

TEST(Sm90TileOrder, EachGroupStartsOnTheColumnItsPredecessorEndedOn) {
  // 2560 x 3072 on 128x128: 20 tile rows, 24 tile columns, groups of 8 rows (192 tiles).
  const Sm90TileConfig config{128, 128, 1, 4, Sm90OperandClass::bits16};
  detail::Problem problem;
  problem.M = 2560, problem.N = 3072, problem.K = 256, problem.L = 1;
  const sm90::TileScheduler<128, 128, 1> order(detail::sm90_gemm_params(problem, detail::Sm90Plan{}, config));
  const auto at = [&](int index) {
    const sm90::TileCoord t = order.tile(index, 0);
    return std::pair(t.m0 / 128, t.n0 / 128);
  };
  EXPECT_EQ(at(0), std::pair(0, 0));
  EXPECT_EQ(at(191), std::pair(7, 23));  // group 0 ends on the last column
  EXPECT_EQ(at(192), std::pair(8, 23));  // group 1 starts there
  EXPECT_EQ(at(200), std::pair(8, 22));
  EXPECT_EQ(at(383), std::pair(15, 0));
  EXPECT_EQ(at(384), std::pair(16, 0));  // group 2 (4 rows) walks forward again
  EXPECT_EQ(at(479), std::pair(19, 23));
}

TEST(Sm90TileOrder, FewTileColumnsWalkRowByRow) {
  expect_grouped_order<64, 128, 1>(1024, 1024, 1);  // 8 tile columns: group 1
  expect_grouped_order<128, 256, 1>(4096, 2048, 2);
  expect_grouped_order<64, 64, 1>(16, 64, 5);
}

TEST(Sm90TileOrder, ClustersTakeAdjacentRowsAndTilesNotMultiplesOfTwo) {
  expect_grouped_order<128, 256, 2>(8192, 8192, 1);
  expect_grouped_order<128, 256, 2>(3000, 3000, 2);  // 24 tile rows -> 12 cluster rows
  expect_grouped_order<128, 256, 2>(3584, 4096, 1);  // 28 tile rows -> 14 cluster rows
  expect_grouped_order<128, 128, 2>(1000, 9000, 1);  // 8 tile rows -> 4 cluster rows
  expect_grouped_order<128, 192, 1>(4096, 14336, 1);
  expect_grouped_order<128, 192, 2>(200, 5000, 3);
}

}  // namespace
}  // namespace epigemm::testing
