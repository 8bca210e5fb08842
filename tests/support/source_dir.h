// Where the tests find the repository's files (examples/, tests/.../testdata) and the optional
// shared data beside it (../shared).
//
// The path is compiled into one translation unit (source_dir.cc) only, so that the other test
// sources do not depend on where the repository is checked out and a compiler cache reuses
// their objects across clones.

#ifndef KARP_TESTS_SUPPORT_SOURCE_DIR_H_
#define KARP_TESTS_SUPPORT_SOURCE_DIR_H_

#include <string>

namespace karp::testing {

// The repository's root directory, without a trailing slash.
const std::string& SourceDir();

}  // namespace karp::testing

#endif  // KARP_TESTS_SUPPORT_SOURCE_DIR_H_
