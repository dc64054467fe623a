// The work items of one CTA (or cluster) of the persistent sm90 GEMM: whole
// tiles, and with stream-K, pieces of tiles cut along K. Plain integer code,
// compiled for the device and, in the tests, for the host.
//
// Stream-K (sk_tiles > 0): the last sk_tiles tiles of the schedule are cut
// into `slots` equal contiguous ranges of k-blocks (unit u = tile * k_blocks
// + k), one per CTA, which balances the last partial wave; the other tiles
// come first, whole, slot + j * slots (the CTAs stay in step there, and
// whole tiles after cut ranges ran 4.5% slower at 4096^3: the CTAs leave
// the ranges at different times). With sk_tiles >= slots each range holds
// at least one tile's k-blocks, so a tile is cut at most once: the CTA whose
// range ends inside it computes its first k-blocks and leaves the sum as a
// partial (writes_partial), the next CTA, whose range begins inside it,
// computes the rest, adds the partial and runs the epilogue (finishes). A
// CTA takes its pieces in the order partial, whole tiles, finish, so every
// partial is written at the start and read at the end of the stream-K
// ranges, and a CTA waits only on the one before it. Split-K is the case
// sk_tiles = tiles and slots = S * tiles (the host splits skinny problems
// so): every range is 1/S of a tile, the first S - 1 of a tile's ranges
// leave partials (the middle ones start inside the tile) and the last one
// finishes it, adding the S - 1 partials of the CTAs before it.
#pragma once

#include "host_device.cuh"

namespace epigemm::sm90 {

/// What a work item does with its sum over k-blocks [k_begin, k_end).
enum class WorkRole : int {
  whole = 0,           ///< all of the tile's k-blocks: runs the epilogue
  writes_partial = 1,  ///< the tile's first k-blocks: leaves the sum for the next CTA
  finishes = 2,        ///< the tile's last k-blocks: adds the previous CTA's partial, runs the epilogue
};

struct WorkItem {
  int tile = -1;  ///< linear (cluster) tile index in the schedule; -1: no more work
  int k_begin = 0;
  int k_end = 0;
  WorkRole role = WorkRole::whole;
  EPG_HOST_DEVICE int k_count() const { return k_end - k_begin; }
  EPG_HOST_DEVICE bool stores() const { return role != WorkRole::writes_partial; }
};

/// The work list of slot `slot` of `slots` (CTAs, or clusters) over `tiles`
/// tiles of `k_blocks` k-blocks, the last `sk_tiles` of them by stream-K
/// (0, or at least `slots`: see above), or with kSplitsK every tile by
/// split-K (sk_tiles = tiles, slots a multiple of it).
template <bool kSplitsK = false>
class WorkList {
 public:
  EPG_HOST_DEVICE WorkList(int tiles, int k_blocks, int slots, int slot, int sk_tiles)
      : tiles_(tiles), k_blocks_(k_blocks), slots_(slots), slot_(slot), sk_tiles_(sk_tiles) {
    if (sk_tiles <= 0) return;
    const int whole = tiles - sk_tiles;
    whole_items_ = whole > slot ? (whole - slot + slots - 1) / slots : 0;
    const long long units = static_cast<long long>(sk_tiles) * k_blocks;
    const long long begin = units * slot / slots, end = units * (slot + 1) / slots;
    head_tile_ = whole + static_cast<int>(begin / k_blocks);
    head_k_ = static_cast<int>(begin % k_blocks);
    tail_tile_ = whole + static_cast<int>(end / k_blocks);
    tail_k_ = static_cast<int>(end % k_blocks);
    whole_first_ = head_k_ > 0 ? head_tile_ + 1 : head_tile_;
    sk_items_ = (tail_k_ > 0 ? 1 : 0) + (tail_tile_ - whole_first_) + (head_k_ > 0 ? 1 : 0);
  }

  /// CTAs (clusters) just before a finishing one whose partials it adds:
  /// one for stream-K, S - 1 for split-K in S slices.
  EPG_HOST_DEVICE int partial_writers() const { return kSplitsK && slots_ > sk_tiles_ ? slots_ / sk_tiles_ - 1 : 1; }

  /// Item `j` of this slot's list (tile -1 past its end).
  EPG_HOST_DEVICE WorkItem item(int j) const {
    WorkItem w;
    w.k_end = k_blocks_;
    const int t = slot_ + j * slots_;  // at most tiles + slots
    // Whole tiles only (the kernels that never cut read this path alone:
    // the precise fp8 loop ran 8% slower with the general one inlined).
    if (sk_tiles_ <= 0) {
      w.tile = t < tiles_ ? t : -1;
      return w;
    }
    if (t < tiles_ - sk_tiles_) {
      w.tile = t;
      return w;
    }
    j -= whole_items_;
    if (j < sk_items_) {
      if (tail_k_ > 0) {
        if (j == 0) {
          w.tile = tail_tile_;
          if (kSplitsK && head_tile_ == tail_tile_) w.k_begin = head_k_;  // a range inside one tile
          w.k_end = tail_k_;
          w.role = WorkRole::writes_partial;
          return w;
        }
        --j;
      }
      if (j < tail_tile_ - whole_first_) {
        w.tile = whole_first_ + j;
      } else {
        w.tile = head_tile_;
        w.k_begin = head_k_;
        w.role = WorkRole::finishes;
      }
      return w;
    }
    w.tile = -1;
    return w;
  }

 private:
  int tiles_, k_blocks_, slots_, slot_, sk_tiles_;
  int head_tile_ = 0, head_k_ = 0;  ///< where the range begins
  int tail_tile_ = 0, tail_k_ = 0;  ///< where it ends
  int whole_first_ = 0;             ///< first whole tile of the range
  int whole_items_ = 0;             ///< whole tiles before the range
  int sk_items_ = 0;                ///< items of the range
};

/// The stage of a work item of `stages` stages after whose wgmmas its
/// consumer TMA-loads the staged epilogue input: once the producer has
/// issued the item's last stage of A and B (`ring` stages ahead), so that
/// the input's read does not delay the operands', or at stage 2 of a short
/// item (0 and 1 when it has fewer). Always one of the item's stages: the
/// epilogue waits for that load.
EPG_HOST_DEVICE int staged_input_stage(int stages, int ring) {
  const int late = stages - ring;
  return late > 2 ? late : stages > 2 ? 2 : stages - 1;
}

}  // namespace epigemm::sm90
