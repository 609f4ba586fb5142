// tessel.ttnn's view of MPI's world (tessel/ranks.hpp): a script under
// mpirun learns its rank and the world's size, and its mesh's collectives
// exchange bytes with the other ranks.
#include <string>
#include <vector>

#include "bindings.hpp"
#include "tessel/ranks.hpp"

namespace tessel::python {

void bind_ranks(nb::module_& m) {
  m.def("ranks_world", [] {
    Ranks& world = Ranks::world();
    return nb::make_tuple(world.rank(), world.size());
  });
  m.def("ranks_all_gather", [](nb::bytes mine) {
    const std::string text(mine.c_str(), mine.size());
    std::vector<std::string> all;
    {
      nb::gil_scoped_release release;
      all = Ranks::world().all_gather(text);
    }
    nb::list out;
    for (const std::string& part : all)
      out.append(nb::bytes(part.data(), part.size()));
    return out;
  });
  m.def("ranks_barrier", [] {
    nb::gil_scoped_release release;
    Ranks::world().barrier();
  });
  m.def("ranks_finalize", [] {
    if (Ranks* ranks = Ranks::started()) ranks->finalize();
  });
}

} // namespace tessel::python
