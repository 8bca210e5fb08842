// Which resource names a container may request (the API server's
// IsStandardContainerResourceName, or a fully qualified extended resource). Internal to the
// model: pod validation (validation.cc) and LimitRange validation (limit_range.cc).

#ifndef KARP_SRC_MODEL_RESOURCE_NAMES_H_
#define KARP_SRC_MODEL_RESOURCE_NAMES_H_

#include <string_view>

namespace karp {

// cpu, memory, ephemeral-storage, hugepages-<size>, or a name with a '/'.
bool IsContainerResourceName(std::string_view name);

}  // namespace karp

#endif  // KARP_SRC_MODEL_RESOURCE_NAMES_H_
