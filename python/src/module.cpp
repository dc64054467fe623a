// The extension module epigemm._epigemm: the C++ API's arguments, operators
// and queries, on which the pure-Python package epigemm builds.
#include "bindings.hpp"

NB_MODULE(_epigemm, m) {
  namespace py = epigemm::python;
  m.doc() = "Low-level binding of libepigemm; use the epigemm package instead.";
  py::bind_errors(m);
  py::bind_tensor(m);
  py::bind_arguments(m);
  py::bind_operators(m);
}
