// The flags that pick where and with what a problem runs: --device, and the
// operator filters (--provider, --operator, --tile, --cluster, --target-sm)
// that become an OperatorQuery. Shared by run and list.
#pragma once

#include <string>
#include <vector>

#include "epigemm/operator.hpp"
#include "flag_set.hpp"

namespace epigemm::cli {

/// Where the tensors live.
struct DeviceChoice {
  bool cuda = false;
  int device = 0;     ///< CUDA ordinal
  int target_sm = 0;  ///< the SM to build for: --target-sm, else the device's
  /// One line saying why auto chose the CPU; empty otherwise.
  std::string note;
};

/// --device and --target-sm.
void add_device_flags(FlagSet& flags);
/// --provider, --operator, --tile, --cluster.
void add_operator_flags(FlagSet& flags);

/// auto: CUDA when device_target_sm() > 0, else the CPU with a note.
/// cuda: throws Error(ErrorKind::Cuda) when there is no usable device.
DeviceChoice choose_device(const FlagSet& flags);

/// The query the operator flags describe, for `target_sm`.
OperatorQuery read_operator_query(const FlagSet& flags, int target_sm);

/// --target-sms and --target-l2-mib (list, precompile) into the query's
/// described GPU (sm_count, l2_bytes); whether either was given.
bool read_described_gpu(const FlagSet& flags, OperatorQuery& query);

/// "cpu_reference (provider cpu_reference)", with tile, cluster and stages
/// when the operator has them.
std::string describe_operator(const OperatorMetadata& md);

/// A table of candidates: name, provider, tile, cluster, what a supported
/// one's ranking rests on (OperatorCandidate::ranking), "ok" or the reason.
std::string describe_candidates(const std::vector<OperatorCandidate>& candidates);

}  // namespace epigemm::cli
