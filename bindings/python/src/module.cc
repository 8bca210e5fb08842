// karp._karp: the C API (karp/c/karp.h) for the Python package karp (bindings/python/karp).
// Each function takes the inputs as (source, bytes) pairs and the options as a JSON string,
// releases the GIL for the call, and returns (status, output) where output is the result
// bytes on success and the error message otherwise; karp/__init__.py turns that into values
// and exceptions.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "karp/c/karp.h"

namespace py = pybind11;

namespace {

using Named = std::pair<std::string, py::bytes>;

// Owned copies of the inputs, valid while the GIL is released.
struct Inputs {
  std::vector<std::string> sources, texts;
  std::vector<karp_input> c;

  void Add(const Named& in) {
    sources.push_back(in.first);
    texts.push_back(std::string(in.second));
  }
  // Call after every Add: the pointers stay valid as the vectors no longer grow.
  const karp_input* Finish() {
    for (size_t i = 0; i < texts.size(); ++i) {
      c.push_back(karp_input{sources[i].c_str(), texts[i].data(), texts[i].size()});
    }
    return c.empty() ? nullptr : c.data();
  }
};

template <typename Call>
py::tuple Run(Call call) {
  char* out = nullptr;
  char* error = nullptr;
  size_t size = 0;
  karp_status status;
  {
    py::gil_scoped_release release;
    status = call(&out, &size, &error);
  }
  py::bytes result = status == KARP_OK ? py::bytes(out, size)
                                       : py::bytes(error != nullptr ? error : "unknown error");
  karp_free(out);
  karp_free(error);
  return py::make_tuple(static_cast<int>(status), result);
}

py::tuple Solve(const std::vector<Named>& snapshot, const std::optional<Named>& catalog,
                const std::string& options, bool consolidate) {
  Inputs snap, cat;
  for (const Named& in : snapshot) snap.Add(in);
  if (catalog) cat.Add(*catalog);
  const karp_input* s = snap.Finish();
  const karp_input* c = cat.Finish();
  return Run([&](char** out, size_t* size, char** error) {
    return consolidate ? karp_consolidate(s, snap.c.size(), c, options.c_str(), out, size, error)
                       : karp_solve(s, snap.c.size(), c, options.c_str(), out, size, error);
  });
}

py::tuple Catalog(const std::optional<Named>& catalog, const std::string& options) {
  Inputs cat;
  if (catalog) cat.Add(*catalog);
  const karp_input* c = cat.Finish();
  return Run([&](char** out, size_t* size, char** error) {
    return karp_catalog(c, options.c_str(), out, size, error);
  });
}

py::tuple Simulate(const Named& trace, const std::optional<Named>& catalog,
                   const std::string& options) {
  Inputs tr, cat;
  tr.Add(trace);
  if (catalog) cat.Add(*catalog);
  const karp_input* t = tr.Finish();
  const karp_input* c = cat.Finish();
  return Run([&](char** out, size_t* size, char** error) {
    return karp_simulate(t, c, options.c_str(), out, size, error);
  });
}

py::tuple ReadFile(const std::string& path, long long max_bytes) {
  return Run([&](char** out, size_t* size, char** error) {
    return karp_read_file(path.c_str(), max_bytes, out, size, error);
  });
}

}  // namespace

PYBIND11_MODULE(_karp, m) {
  m.doc() = "karp's C API (use the package karp, not this module)";
  m.def("solve", [](const std::vector<Named>& s, const std::optional<Named>& c,
                    const std::string& o) { return Solve(s, c, o, false); });
  m.def("consolidate", [](const std::vector<Named>& s, const std::optional<Named>& c,
                          const std::string& o) { return Solve(s, c, o, true); });
  m.def("catalog", &Catalog);
  m.def("simulate", &Simulate);
  m.def("read_file", &ReadFile);
  m.def("version", [] { return std::string(karp_version()); });
  m.def("abi_version", [] { return karp_abi_version(); });
  m.attr("OK") = static_cast<int>(KARP_OK);
  m.attr("INVALID_ARGUMENT") = static_cast<int>(KARP_INVALID_ARGUMENT);
  m.attr("RESOURCE_EXHAUSTED") = static_cast<int>(KARP_RESOURCE_EXHAUSTED);
  m.attr("INTERNAL") = static_cast<int>(KARP_INTERNAL);
}
