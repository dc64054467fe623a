// Types and registration functions shared by the files of the Python
// extension module epigemm._epigemm. Each wrapper pairs a C++ argument object
// with the Python objects whose memory it points into, so they stay alive.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <optional>
#include <string>
#include <vector>

#include "epigemm/epigemm.hpp"

namespace epigemm::python {

namespace nb = nanobind;

/// A TensorRef read from an object that exports DLPack (or the buffer
/// protocol). Holds the export, so the memory stays valid while this lives.
class PyTensor {
 public:
  /// `what` names the tensor in error messages ("Argument C", "A").
  /// `dtype_override` reinterprets the elements (same size) as another dtype,
  /// for producers that cannot export that dtype (fp8 exported as uint8).
  PyTensor(nb::ndarray<nb::ro> array, const std::string& what, const std::optional<std::string>& dtype_override);

  /// A view of memory the caller owns and keeps alive.
  PyTensor(TensorRef ref, const std::string& what);

  const TensorRef& ref() const noexcept { return ref_; }

 private:
  nb::ndarray<nb::ro> array_;  // empty for raw pointers
  TensorRef ref_;
};

/// epigemm::EpilogueArguments plus the tensor objects it points into.
struct PyEpilogueArguments {
  EpilogueArguments args;
  std::vector<nb::object> keep_alive;
};

/// epigemm::GemmArguments plus the tensor and epilogue objects it points into.
struct PyGemmArguments {
  GemmArguments args;
  std::vector<nb::object> keep_alive;
};

/// A DType from a name that parse_dtype accepts; throws Error naming `what`.
DType dtype_from_name(const std::string& name, const std::string& what);

/// Registers the translation of epigemm::Error into Python exceptions.
void bind_errors(nb::module_& m);
/// Registers Tensor and the dtype helpers.
void bind_tensor(nb::module_& m);
/// Registers EpilogueArguments and GemmArguments.
void bind_arguments(nb::module_& m);
/// Registers Status, OperatorMetadata, Operator, get_operators,
/// explain_operators and device_target_sm.
void bind_operators(nb::module_& m);

}  // namespace epigemm::python
