// Status, OperatorMetadata and Operator for Python, and the queries that
// return or measure operators: get_operators, explain_operators,
// time_operators, device_target_sm.
#include <nanobind/stl/function.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>

#include "bindings.hpp"

namespace epigemm::python {
namespace {

nb::dict metadata_dict(const OperatorMetadata& md) {
  nb::dict d;
  d["name"] = md.name;
  d["provider"] = md.provider;
  d["min_sm"] = md.min_sm;
  d["tile"] = nb::make_tuple(md.tile.m, md.tile.n, md.tile.k);
  d["cluster"] = nb::make_tuple(md.cluster.m, md.cluster.n);
  d["stages"] = md.stages;
  d["extra"] = nb::cast(md.extra);
  return d;
}

// The query, with the Python filter called on a copy of each metadata. An
// exception raised by the filter propagates to the caller unchanged.
OperatorQuery make_query(int target_sm, nb::object metadata_filter, std::vector<std::string> providers,
                         bool ignore_devices, int sm_count, std::int64_t l2_bytes) {
  OperatorQuery query;
  query.target_sm = target_sm;
  query.providers = std::move(providers);
  query.ignore_devices = ignore_devices;
  query.sm_count = sm_count;
  query.l2_bytes = l2_bytes;
  if (!metadata_filter.is_none()) {
    if (!PyCallable_Check(metadata_filter.ptr())) {
      throw Error(ErrorKind::Value, "metadata_filter must be callable (metadata -> bool)");
    }
    query.metadata_filter = [metadata_filter](const OperatorMetadata& md) {
      nb::object verdict = metadata_filter(nb::cast(md, nb::rv_policy::copy));
      const int truth = PyObject_IsTrue(verdict.ptr());
      if (truth < 0) throw nb::python_error();
      return truth == 1;
    };
  }
  return query;
}

}  // namespace

void bind_operators(nb::module_& m) {
  nb::class_<Status>(m, "Status", "Whether an operator can run a problem; truthy when it can, else `reason` says why.")
      .def(
          "__init__",
          [](Status* self, bool ok, const std::string& reason) {
            new (self) Status(ok ? Status::ok() : Status::unsupported(reason));
          },
          nb::arg("ok") = true, nb::arg("reason") = "")
      .def_prop_ro("ok", &Status::is_ok)
      .def_prop_ro("reason", [](const Status& s) { return s.reason(); })
      .def_prop_ro(
          "error", [](const Status& s) { return s.reason(); }, "The reason (the same as `reason`).")
      .def("__bool__", &Status::is_ok)
      .def("__repr__", [](const Status& s) -> std::string {
        if (s.is_ok()) return "Status(ok=True)";
        return std::string("Status(ok=False, reason=") + nb::repr(nb::str(s.reason().c_str())).c_str() + ")";
      });

  nb::class_<OperatorMetadata>(m, "OperatorMetadata",
                               "What an operator is: name, provider, tile, cluster, stages and provider facts.")
      .def_ro("name", &OperatorMetadata::name)
      .def_ro("provider", &OperatorMetadata::provider)
      .def_ro("min_sm", &OperatorMetadata::min_sm)
      .def_prop_ro("tile", [](const OperatorMetadata& md) { return nb::make_tuple(md.tile.m, md.tile.n, md.tile.k); })
      .def_prop_ro("cluster", [](const OperatorMetadata& md) { return nb::make_tuple(md.cluster.m, md.cluster.n); })
      .def_ro("stages", &OperatorMetadata::stages)
      .def_prop_ro("extra", [](const OperatorMetadata& md) { return nb::cast(md.extra); })
      .def("as_dict", &metadata_dict)
      .def("__getitem__",
           [](const OperatorMetadata& md, const std::string& key) {
             nb::dict d = metadata_dict(md);
             if (!d.contains(key.c_str())) throw nb::key_error(key.c_str());
             return nb::object(d[key.c_str()]);
           })
      .def(
          "get",
          [](const OperatorMetadata& md, const std::string& key, nb::object fallback) {
            nb::dict d = metadata_dict(md);
            return d.contains(key.c_str()) ? nb::object(d[key.c_str()]) : fallback;
          },
          nb::arg("key"), nb::arg("default") = nb::none())
      .def("__contains__",
           [](const OperatorMetadata& md, const std::string& key) { return metadata_dict(md).contains(key.c_str()); })
      .def("keys", [](const OperatorMetadata& md) { return metadata_dict(md).keys(); })
      .def("__repr__", [](const OperatorMetadata& md) { return std::string(nb::repr(metadata_dict(md)).c_str()); });

  nb::class_<Operator>(m, "Operator", "One kernel configuration of one provider (low-level; see epigemm.Operator).")
      .def_prop_ro("name", [](const Operator& op) { return op.name(); })
      .def_prop_ro("metadata", [](const Operator& op) { return op.metadata(); })
      .def(
          "supports", [](const Operator& op, const PyGemmArguments& args) { return op.supports(args.args); },
          nb::arg("args"))
      .def(
          "compile", [](Operator& op, const PyGemmArguments& args) { op.compile(args.args); }, nb::arg("args"),
          nb::call_guard<nb::gil_scoped_release>())
      .def(
          "precompile",
          [](const Operator& op, const PyGemmArguments& args, int sm_count) {
            const PrecompileResult r = op.precompile(args.args, sm_count);
            return std::make_pair(r.kernels, r.compiled);
          },
          nb::arg("args"), nb::arg("sm_count") = 0, nb::call_guard<nb::gil_scoped_release>())
      .def(
          "run",
          [](Operator& op, const PyGemmArguments& args, std::uintptr_t stream) {
            op.run(args.args, reinterpret_cast<void*>(stream));
          },
          nb::arg("args"), nb::arg("stream") = 0, nb::call_guard<nb::gil_scoped_release>())
      .def(
          "plan_notes", [](const Operator& op, const PyGemmArguments& args) { return op.plan_notes(args.args); },
          nb::arg("args"))
      .def(
          "ranking", [](const Operator& op, const PyGemmArguments& args) { return op.ranking(args.args); },
          nb::arg("args"))
      .def("__repr__", [](const Operator& op) { return "<epigemm Operator " + op.name() + ">"; });

  m.def(
      "get_operators",
      [](const PyGemmArguments& args, int target_sm, nb::object metadata_filter, std::vector<std::string> providers,
         bool ignore_devices, int sm_count, std::int64_t l2_bytes) {
        return get_operators(args.args, make_query(target_sm, std::move(metadata_filter), std::move(providers),
                                                   ignore_devices, sm_count, l2_bytes));
      },
      nb::arg("args"), nb::arg("target_sm") = 0, nb::arg("metadata_filter") = nb::none(),
      nb::arg("providers") = std::vector<std::string>{}, nb::arg("ignore_devices") = false, nb::arg("sm_count") = 0,
      nb::arg("l2_bytes") = 0);
  m.def(
      "explain_operators",
      [](const PyGemmArguments& args, int target_sm, nb::object metadata_filter, std::vector<std::string> providers,
         bool ignore_devices, int sm_count, std::int64_t l2_bytes) {
        std::vector<std::pair<Operator, Status>> out;
        for (auto& c : explain_operators(args.args, make_query(target_sm, std::move(metadata_filter),
                                                               std::move(providers), ignore_devices, sm_count,
                                                               l2_bytes))) {
          out.emplace_back(c.op, c.status);
        }
        return out;
      },
      nb::arg("args"), nb::arg("target_sm") = 0, nb::arg("metadata_filter") = nb::none(),
      nb::arg("providers") = std::vector<std::string>{}, nb::arg("ignore_devices") = false, nb::arg("sm_count") = 0,
      nb::arg("l2_bytes") = 0);
  m.def(
      "time_operators",
      [](const std::vector<Operator>& ops, const PyGemmArguments& args, int rounds, int warmup, int iterations,
         double turn_ms, bool flush_l2, std::uintptr_t stream) {
        std::vector<std::tuple<Operator, double, double, int>> out;
        const TimingOptions options{rounds, warmup, iterations, turn_ms, flush_l2};
        for (const OperatorTiming& t : time_operators(ops, args.args, options, reinterpret_cast<void*>(stream))) {
          out.emplace_back(t.op, t.median_ms, t.compile_ms, t.runs_per_turn);
        }
        return out;
      },
      nb::arg("ops"), nb::arg("args"), nb::arg("rounds"), nb::arg("warmup"), nb::arg("iterations"),
      nb::arg("turn_ms"), nb::arg("flush_l2"), nb::arg("stream"), nb::call_guard<nb::gil_scoped_release>());
  m.def("device_target_sm", &device_target_sm,
        "The SM version of the current CUDA device (e.g. 90), or 0 without one.");
}

}  // namespace epigemm::python
