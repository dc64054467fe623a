// Turns epigemm::Error into the Python exception its kind calls for:
// Syntax -> SyntaxError, Binding/Value/Shape/Type -> ValueError, the rest ->
// RuntimeError. The message is kept word for word.
#include "bindings.hpp"

namespace epigemm::python {
namespace {

const char* kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Syntax:
      return "syntax";
    case ErrorKind::Binding:
      return "binding";
    case ErrorKind::Value:
      return "value";
    case ErrorKind::Shape:
      return "shape";
    case ErrorKind::Type:
      return "type";
    case ErrorKind::Output:
      return "output";
    case ErrorKind::Unsupported:
      return "unsupported";
    case ErrorKind::Compile:
      return "compile";
    case ErrorKind::Cuda:
      return "cuda";
    case ErrorKind::Internal:
      return "internal";
  }
  return "internal";
}

PyObject* exception_type(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Syntax:
      return PyExc_SyntaxError;
    case ErrorKind::Binding:
    case ErrorKind::Value:
    case ErrorKind::Shape:
    case ErrorKind::Type:
      return PyExc_ValueError;
    default:
      return PyExc_RuntimeError;
  }
}

// Sets attribute `name` on `exc`; a failure to set it is not worth hiding the
// real error for, so it is cleared.
void set_attribute(PyObject* exc, const char* name, PyObject* value) {
  if (value == nullptr || PyObject_SetAttrString(exc, name, value) != 0) PyErr_Clear();
  Py_XDECREF(value);
}

// A SyntaxError carries the bare message and the position as lineno/offset
// (Python prints "message (line L)"); the others carry what() as it is.
void raise_error(const Error& error) {
  PyObject* type = exception_type(error.kind());
  const bool syntax = error.kind() == ErrorKind::Syntax;
  const std::string text = syntax ? error.message() : std::string(error.what());
  PyObject* message = PyUnicode_FromStringAndSize(text.data(), static_cast<Py_ssize_t>(text.size()));
  if (message == nullptr) return;  // the failed call left its own exception set
  PyObject* exc = PyObject_CallOneArg(type, message);
  Py_DECREF(message);
  if (exc == nullptr) return;
  set_attribute(exc, "kind", PyUnicode_FromString(kind_name(error.kind())));
  set_attribute(exc, "message",
                PyUnicode_FromStringAndSize(error.message().data(), static_cast<Py_ssize_t>(error.message().size())));
  set_attribute(exc, "line", PyLong_FromLong(error.line()));
  set_attribute(exc, "column", PyLong_FromLong(error.column()));
  if (syntax && error.line() > 0) {
    set_attribute(exc, "lineno", PyLong_FromLong(error.line()));
    set_attribute(exc, "offset", PyLong_FromLong(error.column()));
  }
  PyErr_SetObject(type, exc);
  Py_DECREF(exc);
}

}  // namespace

void bind_errors(nb::module_& m) {
  (void)m;
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      raise_error(e);
    }
  });
}

}  // namespace epigemm::python
