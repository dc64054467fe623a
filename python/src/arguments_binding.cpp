// EpilogueArguments and GemmArguments for Python: built from Tensor objects
// and numbers, each keeping the Python objects it points into alive, and
// checked when built.
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "api/problem.hpp"
#include "bindings.hpp"

namespace epigemm::python {
namespace {

// A number becomes a by-value scalar; a Tensor a tensor binding (kept alive).
Binding to_binding(const std::string& name, nb::handle value, std::vector<nb::object>& keep_alive) {
  if (nb::isinstance<PyTensor>(value)) {
    keep_alive.push_back(nb::borrow(value));
    return Binding(nb::cast<const PyTensor&>(value).ref());
  }
  if (PyFloat_Check(value.ptr()) || (PyLong_Check(value.ptr()) && !PyBool_Check(value.ptr()))) {
    return Binding(nb::cast<double>(value));
  }
  throw Error(ErrorKind::Binding, "Argument " + name + " is a " + std::string(nb::type_name(value.type()).c_str()) +
                                      "; bind a number or a tensor");
}

void init_epilogue(PyEpilogueArguments* self, const std::string& source, const nb::dict& bindings) {
  std::vector<nb::object> keep_alive;
  std::map<std::string, Binding> values;
  for (auto [key, value] : bindings) {
    const std::string name = nb::cast<std::string>(key);
    values.emplace(name, to_binding(name, value, keep_alive));
  }
  EpilogueArguments args(source, std::move(values));
  new (self) PyEpilogueArguments{std::move(args), std::move(keep_alive)};
}

const TensorRef& tensor_of(const char* what, nb::handle tensor, std::vector<nb::object>& keep_alive) {
  if (!nb::isinstance<PyTensor>(tensor)) {
    throw Error(ErrorKind::Value,
                std::string(what) + " is a " + nb::type_name(tensor.type()).c_str() + ", not a Tensor");
  }
  keep_alive.push_back(nb::borrow(tensor));
  return nb::cast<const PyTensor&>(tensor).ref();
}

void init_gemm(PyGemmArguments* self, nb::handle A, nb::handle B, nb::handle out, const std::string& accumulator,
               nb::handle epilogue, const std::string& compute) {
  PyGemmArguments result;
  GemmArguments& args = result.args;
  args.A = tensor_of("A", A, result.keep_alive);
  args.B = tensor_of("B", B, result.keep_alive);
  args.out = tensor_of("out", out, result.keep_alive);
  args.accumulator = dtype_from_name(accumulator, "accumulator_type");
  args.compute = dtype_from_name(compute, "compute_type");
  if (!epilogue.is_none()) {
    if (!nb::isinstance<PyEpilogueArguments>(epilogue)) {
      throw Error(ErrorKind::Value,
                  std::string("epilogue is a ") + nb::type_name(epilogue.type()).c_str() + ", not EpilogueArguments");
    }
    result.keep_alive.push_back(nb::borrow(epilogue));
    args.epilogue = nb::cast<const PyEpilogueArguments&>(epilogue).args;
  }
  // Malformed arguments fail here, where they are built, not at the first query.
  detail::Problem problem;
  detail::analyze(result.args, problem);
  new (self) PyGemmArguments(std::move(result));
}

nb::dict bindings_dict(const EpilogueArguments& args) {
  nb::dict d;
  for (const auto& [name, b] : args.bindings()) {
    if (b.is_scalar()) {
      d[name.c_str()] = b.scalar();
    } else {
      d[name.c_str()] = b.tensor().describe();
    }
  }
  return d;
}

}  // namespace

void bind_arguments(nb::module_& m) {
  nb::class_<PyEpilogueArguments>(m, "EpilogueArguments",
                                  "A parsed epilogue with its bindings (low-level; see epigemm.EpilogueArguments).")
      .def("__init__", &init_epilogue, nb::arg("source"), nb::arg("bindings"),
           "Parses `source` and binds every parameter and output; values are numbers or Tensor objects.")
      .def_prop_ro("source", [](const PyEpilogueArguments& e) { return e.args.source(); })
      .def_prop_ro(
          "bindings", [](const PyEpilogueArguments& e) { return bindings_dict(e.args); },
          "name -> number, or a description of the bound tensor")
      .def("__repr__", [](const PyEpilogueArguments& e) {
        std::string s = "<epigemm EpilogueArguments";
        for (const auto& [name, b] : e.args.bindings()) {
          s += " " + name + "=" + (b.is_scalar() ? std::to_string(b.scalar()) : b.tensor().describe());
        }
        return s + ">";
      });

  nb::class_<PyGemmArguments>(m, "GemmArguments", "D = epilogue(A @ B) (low-level; see epigemm.GemmArguments).")
      .def("__init__", &init_gemm, nb::arg("A"), nb::arg("B"), nb::arg("out"), nb::arg("accumulator") = "f32",
           nb::arg("epilogue") = nb::none(), nb::arg("compute") = "f32")
      .def_prop_ro("accumulator", [](const PyGemmArguments& g) { return std::string(to_string(g.args.accumulator)); })
      .def_prop_ro("compute", [](const PyGemmArguments& g) { return std::string(to_string(g.args.compute)); })
      .def("__repr__", [](const PyGemmArguments& g) {
        return "<epigemm GemmArguments A=" + g.args.A.describe() + " B=" + g.args.B.describe() +
               " out=" + g.args.out.describe() + " accumulator=" + std::string(to_string(g.args.accumulator)) +
               (g.args.epilogue ? " with epilogue>" : ">");
      });
}

}  // namespace epigemm::python
