#include "bindings.hpp"
#include "tessel/interrupt.hpp"

NB_MODULE(_tessel, m) {
  using namespace tessel::python;
  m.doc() = "tessel's C++ core; use the tessel package, which checks its inputs";
  bind_errors(m);
  bind_device(m);
  bind_program(m);
  bind_formats(m);
  bind_examples(m);
  bind_ops(m);
  bind_operation(m);
  bind_dispatch(m);
  bind_mesh_capsule(m);
  bind_flow(m);
  bind_trace(m);
  bind_ranks(m);
  m.def("install_interrupt_handler", &install_interrupt_handler);
  m.def("forward_signal", &forward_signal);
  m.def("request_interrupt", &tessel::request_interrupt);
  m.def("clear_interrupt", &tessel::clear_interrupt);
  m.def("interrupt_requested", &tessel::interrupt_requested);
}
