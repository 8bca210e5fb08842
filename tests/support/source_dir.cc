#include "support/source_dir.h"

#ifndef KARP_SOURCE_DIR
#error "source_dir.cc is compiled with -DKARP_SOURCE_DIR=<the repository root>"
#endif

namespace karp::testing {

const std::string& SourceDir() {
  static const std::string* const dir = new std::string(KARP_SOURCE_DIR);
  return *dir;
}

}  // namespace karp::testing
