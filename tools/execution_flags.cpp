// Device choice and operator filters for run and list. The CUDA device is
// found through device_target_sm(), with the runtime's driver wrapper as
// the fallback and the source of the reason when there is none.
#include "execution_flags.hpp"

#include <memory>

#include "epigemm/error.hpp"
#include "flag_values.hpp"
#include "runtime/driver.hpp"
#include "text_table.hpp"

namespace epigemm::cli {
namespace {

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(',', start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

std::string tile_text(const TileShape& t) {
  if (t.m == 0 && t.n == 0 && t.k == 0) return "-";
  return std::to_string(t.m) + "x" + std::to_string(t.n) + "x" + std::to_string(t.k);
}

std::string cluster_text(const OperatorMetadata& md) {
  if (md.min_sm == 0) return "-";
  return std::to_string(md.cluster.m) + "x" + std::to_string(md.cluster.n);
}

}  // namespace

void add_device_flags(FlagSet& flags) {
  flags.add_section("device and operator");
  flags.add_value("device", "auto|cpu|cuda", "auto",
                  "where the tensors live; auto picks cuda when a CUDA device is found, else cpu");
  flags.add_value("target-sm", "SM", "the device's; none on cpu",
                  "GPU architecture to select operators for (90, 80, ...)");
}

void add_operator_flags(FlagSet& flags) {
  flags.add_value("provider", "NAME[,NAME...]", "all", "keep only these providers (cpu_reference, simt, sm80, sm90)");
  flags.add_value("operator", "NAME", "the first that supports the problem", "use the operator with this name");
  flags.add_value("tile", "MxNxK", "any", "keep only operators with this tile shape");
  flags.add_value("cluster", "MxN", "any", "keep only operators with this cluster shape");
  flags.add_value("fp8-accumulation", "MODE", "precise ranks first",
                  "fast or precise: keep only fp8 operators that accumulate so (fast: the tensor cores' "
                  "reduced-precision sum over all of K)");
}

DeviceChoice choose_device(const FlagSet& flags) {
  DeviceChoice choice;
  const std::string device =
      flags.value("device") ? parse_choice("device", *flags.value("device"), {"auto", "cpu", "cuda"}) : "auto";
  const int flag_sm = flags.value("target-sm")
                          ? static_cast<int>(parse_integer("target-sm", *flags.value("target-sm"), 0, 1000))
                          : 0;
  choice.target_sm = flag_sm;
  if (device == "cpu") return choice;
  int device_sm = device_target_sm();
  if (device_sm <= 0) {
    Status why_not = Status::ok();
    if (const runtime::Driver* driver = runtime::Driver::get(&why_not)) {
      device_sm = driver->device_info(0).sm;
    } else if (device == "cuda") {
      throw Error(ErrorKind::Cuda, "--device cuda: " + why_not.reason());
    } else {
      choice.note = "no CUDA device found: running on the cpu_reference provider (" + why_not.reason() + ")";
      return choice;
    }
  }
  choice.cuda = true;
  if (choice.target_sm == 0) choice.target_sm = device_sm;
  return choice;
}

OperatorQuery read_operator_query(const FlagSet& flags, int target_sm) {
  OperatorQuery query;
  query.target_sm = target_sm;
  if (auto v = flags.value("provider")) {
    for (const auto& name : split_commas(*v)) {
      if (name.empty()) throw UsageError("--provider: empty provider name in '" + *v + "'");
      query.providers.push_back(name);
    }
  }
  std::optional<std::string> name = flags.value("operator");
  std::optional<TileShape> tile;
  std::optional<ClusterShape> cluster;
  if (auto v = flags.value("tile")) tile = parse_tile("tile", *v);
  if (auto v = flags.value("cluster")) cluster = parse_cluster("cluster", *v);
  std::optional<std::string> fp8_accumulation;
  if (auto v = flags.value("fp8-accumulation")) {
    fp8_accumulation = parse_choice("fp8-accumulation", *v, {"fast", "precise"});
  }
  if (name || tile || cluster || fp8_accumulation) {
    query.metadata_filter = [name, tile, cluster, fp8_accumulation](const OperatorMetadata& md) {
      if (name && md.name != *name) return false;
      if (fp8_accumulation) {
        const auto it = md.extra.find("fp8_accumulation");
        if (it != md.extra.end() && it->second != *fp8_accumulation) return false;
      }
      if (tile && (md.tile.m != tile->m || md.tile.n != tile->n || md.tile.k != tile->k)) return false;
      if (cluster && (md.cluster.m != cluster->m || md.cluster.n != cluster->n)) return false;
      return true;
    };
  }
  return query;
}

bool read_described_gpu(const FlagSet& flags, OperatorQuery& query) {
  const auto sms = flags.value("target-sms"), l2_mib = flags.value("target-l2-mib");
  if (sms) query.sm_count = static_cast<int>(parse_integer("target-sms", *sms, 1, 1024));
  if (l2_mib) query.l2_bytes = parse_integer("target-l2-mib", *l2_mib, 1, 1 << 20) << 20;
  return sms || l2_mib;
}

std::string describe_operator(const OperatorMetadata& md) {
  std::string s = md.name + " (provider " + md.provider;
  if (md.min_sm > 0) s += ", sm_" + std::to_string(md.min_sm) + "+";
  if (tile_text(md.tile) != "-") s += ", tile " + tile_text(md.tile);
  if (md.min_sm > 0) s += ", cluster " + cluster_text(md);
  if (md.stages > 0) s += ", " + std::to_string(md.stages) + " stages";
  return s + ")";
}

std::string describe_candidates(const std::vector<OperatorCandidate>& candidates) {
  TextTable table({"operator", "provider", "tile", "cluster", "ranking", "status"});
  for (const auto& c : candidates) {
    const OperatorMetadata& md = c.op.metadata();
    table.add_row({md.name, md.provider, tile_text(md.tile), cluster_text(md), c.ranking.empty() ? "-" : c.ranking,
                   c.status ? "ok" : "rejected: " + c.status.reason()});
  }
  return table.render("  ");
}

}  // namespace epigemm::cli
