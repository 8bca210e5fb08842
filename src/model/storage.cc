// Storage object value types (see karp/storage.h).

#include "karp/storage.h"

#include <string>
#include <string_view>

#include "internal/strings.h"

namespace karp {

std::string PersistentVolumeClaim::Key() const {
  return internal::StrCat(metadata.namespace_, "/", metadata.name);
}

std::string_view VolumeBindingModeName(VolumeBindingMode mode) {
  switch (mode) {
    case VolumeBindingMode::kImmediate:
      return "Immediate";
    case VolumeBindingMode::kWaitForFirstConsumer:
      return "WaitForFirstConsumer";
  }
  return "Immediate";
}

}  // namespace karp
