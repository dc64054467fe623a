// PyTensor: reads a DLPack export (pointer, dtype, shape, strides, device)
// into a TensorRef, refusing what epigemm cannot address (negative strides,
// unknown dtypes or devices) with a message naming the tensor.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>

#include "bindings.hpp"

namespace epigemm::python {
namespace {

namespace dl = nb::dlpack;

// DLPack device types (dlpack.h: kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged).
constexpr int kDeviceCpu = 1;
constexpr int kDeviceCuda = 2;
constexpr int kDeviceCudaHost = 3;
constexpr int kDeviceCudaManaged = 13;

std::string dlpack_dtype_name(dl::dtype t) {
  std::string base;
  switch (static_cast<dl::dtype_code>(t.code)) {
    case dl::dtype_code::Int:
      base = "int";
      break;
    case dl::dtype_code::UInt:
      base = "uint";
      break;
    case dl::dtype_code::Float:
      base = "float";
      break;
    case dl::dtype_code::Bfloat:
      base = "bfloat";
      break;
    case dl::dtype_code::Complex:
      base = "complex";
      break;
    case dl::dtype_code::Bool:
      return "bool";
    case dl::dtype_code::Float8_E4M3FN:
      return "float8_e4m3fn";
    case dl::dtype_code::Float8_E5M2:
      return "float8_e5m2";
    default:
      base = "dlpack type code " + std::to_string(t.code) + " with bits ";
      break;
  }
  std::string name = base + std::to_string(t.bits);
  if (t.lanes != 1) name += " x" + std::to_string(t.lanes) + " lanes";
  return name;
}

std::optional<DType> dtype_from_dlpack(dl::dtype t) {
  if (t.lanes != 1) return std::nullopt;
  switch (static_cast<dl::dtype_code>(t.code)) {
    case dl::dtype_code::Float:
      if (t.bits == 16) return DType::f16;
      if (t.bits == 32) return DType::f32;
      if (t.bits == 64) return DType::f64;
      return std::nullopt;
    case dl::dtype_code::Bfloat:
      return t.bits == 16 ? std::optional(DType::bf16) : std::nullopt;
    case dl::dtype_code::Float8_E4M3FN:
      return t.bits == 8 ? std::optional(DType::e4m3) : std::nullopt;
    case dl::dtype_code::Float8_E5M2:
      return t.bits == 8 ? std::optional(DType::e5m2) : std::nullopt;
    case dl::dtype_code::Int:
      if (t.bits == 8) return DType::i8;
      if (t.bits == 32) return DType::i32;
      return std::nullopt;
    case dl::dtype_code::UInt:
      return t.bits == 8 ? std::optional(DType::u8) : std::nullopt;
    default:
      return std::nullopt;
  }
}

std::string dims_text(const std::int64_t* values, std::size_t n) {
  std::string s = "(";
  for (std::size_t i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + (n == 1 ? ",)" : ")");
}

}  // namespace

DType dtype_from_name(const std::string& name, const std::string& what) {
  if (auto d = parse_dtype(name)) return *d;
  throw Error(ErrorKind::Type, what + " '" + name +
                                   "' is not a dtype epigemm knows; use one of float16, bfloat16, float32, "
                                   "tfloat32, float64, float8_e4m3fn, float8_e5m2, int8, uint8, int32");
}

PyTensor::PyTensor(nb::ndarray<nb::ro> array, const std::string& what, const std::optional<std::string>& dtype_override)
    : array_(std::move(array)) {
  const std::size_t rank = array_.ndim();
  if (rank > static_cast<std::size_t>(Dims::kMaxRank)) {
    throw Error(ErrorKind::Shape, what + " has " + std::to_string(rank) + " dimensions; epigemm takes at most " +
                                      std::to_string(Dims::kMaxRank));
  }
  const std::optional<DType> exported = dtype_from_dlpack(array_.dtype());
  DType dtype{};
  if (dtype_override) {
    dtype = dtype_from_name(*dtype_override, what + ": dtype");
    if (static_cast<int>(array_.itemsize()) != size_bytes(dtype) || array_.dtype().lanes != 1) {
      throw Error(ErrorKind::Type, what + " exports " + dlpack_dtype_name(array_.dtype()) +
                                       " elements, which cannot be read as " + std::string(to_string(dtype)) +
                                       " (the sizes differ)");
    }
  } else if (exported) {
    dtype = *exported;
  } else {
    throw Error(ErrorKind::Type, what + " has dtype " + dlpack_dtype_name(array_.dtype()) +
                                     ", which epigemm cannot use; use float16, bfloat16, float32, float64, "
                                     "float8_e4m3fn, float8_e5m2, int8, uint8 or int32");
  }

  Dims shape, strides;
  bool negative = false;
  for (std::size_t i = 0; i < rank; ++i) {
    shape.push_back(static_cast<std::int64_t>(array_.shape(i)));
    strides.push_back(array_.stride(i));
    negative = negative || (array_.stride(i) < 0 && array_.shape(i) > 1);
  }
  if (negative) {
    throw Error(ErrorKind::Shape, what + " has shape " + shape.to_string() + " and strides " +
                                      dims_text(array_.stride_ptr(), rank) +
                                      " (in elements); epigemm cannot address negative strides, pass a copy "
                                      "(tensor.contiguous() or numpy.ascontiguousarray) instead");
  }
  for (std::size_t i = 0; i < rank; ++i) {
    if (strides[static_cast<int>(i)] < 0) strides[static_cast<int>(i)] = 0;  // extent 1: the stride is never used
  }

  Device device = Device::host;
  int device_index = 0;
  switch (array_.device_type()) {
    case kDeviceCpu:
    case kDeviceCudaHost:
      break;
    case kDeviceCuda:
    case kDeviceCudaManaged:
      device = Device::cuda;
      device_index = array_.device_id();
      break;
    default:
      throw Error(ErrorKind::Value, what + " lives on DLPack device type " + std::to_string(array_.device_type()) +
                                        "; epigemm reads host (CPU) and CUDA memory only");
  }
  void* data = static_cast<void*>(
      const_cast<std::uint8_t*>(static_cast<const std::uint8_t*>(array_.data_handle()) + array_.byte_offset()));
  ref_ = TensorRef{data, dtype, shape, strides, device, device_index};
}

PyTensor::PyTensor(TensorRef ref, const std::string& what) : ref_(std::move(ref)) {
  for (std::int64_t s : ref_.strides) {
    if (s < 0) throw Error(ErrorKind::Shape, what + " has a negative stride; epigemm cannot address negative strides");
  }
  if (!ref_.strides.empty() && ref_.strides.size() != ref_.shape.size()) {
    throw Error(ErrorKind::Shape, what + " has shape " + ref_.shape.to_string() + " but strides " +
                                      ref_.strides.to_string() + "; give one stride per dimension");
  }
}

void bind_tensor(nb::module_& m) {
  nb::class_<PyTensor>(m, "Tensor",
                       "A view of a tensor's memory read through DLPack; keeps the export alive while it lives.")
      .def(nb::init<nb::ndarray<nb::ro>, const std::string&, const std::optional<std::string>&>(), nb::arg("array"),
           nb::arg("what") = "tensor", nb::arg("dtype") = nb::none())
      .def_static(
          "from_pointer",
          [](std::uintptr_t pointer, const std::string& dtype, const std::vector<std::int64_t>& shape,
             std::optional<std::vector<std::int64_t>> strides, const std::string& device, int device_index) {
            if (device != "cpu" && device != "cuda") {
              throw Error(ErrorKind::Value, "device '" + device + "' is not 'cpu' or 'cuda'");
            }
            TensorRef ref{reinterpret_cast<void*>(pointer),
                          dtype_from_name(dtype, "dtype"),
                          Dims(shape),
                          strides ? Dims(*strides) : Dims(),
                          device == "cuda" ? Device::cuda : Device::host,
                          device_index};
            return PyTensor(ref, "tensor at " + std::to_string(pointer));
          },
          nb::arg("pointer"), nb::arg("dtype"), nb::arg("shape"), nb::arg("strides") = nb::none(),
          nb::arg("device") = "cpu", nb::arg("device_index") = 0,
          "A view of raw memory the caller owns and keeps alive. Strides are in elements.")
      .def_prop_ro("dtype", [](const PyTensor& t) { return std::string(to_string(t.ref().dtype)); })
      .def_prop_ro("shape", [](const PyTensor& t) { return nb::tuple(nb::cast(t.ref().shape.to_vector())); })
      .def_prop_ro("strides",
                   [](const PyTensor& t) { return nb::tuple(nb::cast(t.ref().effective_strides().to_vector())); })
      .def_prop_ro("device", [](const PyTensor& t) { return t.ref().device == Device::cuda ? "cuda" : "cpu"; })
      .def_prop_ro("device_index", [](const PyTensor& t) { return t.ref().device_index; })
      .def_prop_ro("data_ptr", [](const PyTensor& t) { return reinterpret_cast<std::uintptr_t>(t.ref().data); })
      .def("__repr__", [](const PyTensor& t) { return "<epigemm Tensor " + t.ref().describe() + ">"; });

  m.def(
      "parse_dtype",
      [](const std::string& name, const std::string& what) {
        return std::string(to_string(dtype_from_name(name, what)));
      },
      nb::arg("name"), nb::arg("what") = "dtype",
      "The short epigemm name ('f16', 'e4m3', ...) of a dtype name; ValueError naming `what` if unknown.");
  m.def(
      "dtype_size", [](const std::string& name) { return size_bytes(dtype_from_name(name, "dtype")); }, nb::arg("name"),
      "Bytes per element of a dtype.");
}

}  // namespace epigemm::python
