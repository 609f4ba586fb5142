// C++ exceptions to the Python classes of tessel.errors, message unchanged.
#include "tessel/flow/loaded_design.hpp"
#include "bindings.hpp"
#include "tessel/error.hpp"

namespace tessel::python {

namespace {

// The class of tessel.errors named `name` (the module imported once, on first
// use, and never released: a static nb::object would be released after the
// interpreter has finalised).
PyObject* error_class(const char* name) {
  static PyObject* errors = nb::module_::import_("tessel.errors").release().ptr();
  return nb::handle(errors).attr(name).ptr();
}

template <typename E>
bool set_if(const std::exception& e, const char* name) {
  if (!dynamic_cast<const E*>(&e)) return false;
  PyErr_SetString(error_class(name), e.what());
  return true;
}

} // namespace

void bind_errors(nb::module_&) {
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      // Most derived first.
      set_if<flow::FlowError>(e, "FlowError") || set_if<ProgramError>(e, "ProgramError") || set_if<ValidationError>(e, "ValidationError") ||
          set_if<OutOfMemoryError>(e, "OutOfMemoryError") || set_if<DeadlockError>(e, "DeadlockError") ||
          set_if<KernelError>(e, "KernelError") || set_if<KernelFault>(e, "KernelFault") ||
          set_if<Interrupted>(e, "Interrupted") || set_if<Error>(e, "Error");
    }
  });
}

} // namespace tessel::python
