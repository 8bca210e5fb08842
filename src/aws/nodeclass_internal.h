// Internal to karp::aws: helpers the EC2NodeClass, launch-template and user-data code share
// (canonical encodings for deterministic hashes).

#ifndef KARP_SRC_AWS_NODECLASS_INTERNAL_H_
#define KARP_SRC_AWS_NODECLASS_INTERNAL_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "internal/status_macros.h"  // KARP_RETURN_IF_ERROR for the files that share this header
#include "karp/aws/ec2nodeclass.h"

namespace karp::aws {

// 64-bit FNV-1a of `data`: the same on every platform and run.
uint64_t Fnv1a64(std::string_view data);

// An unambiguous text encoding of key/value fields (every piece length-prefixed), the input
// of the deterministic hashes.
class CanonicalWriter {
 public:
  void Field(std::string_view key, std::string_view value);
  void Map(std::string_view key, const std::map<std::string, std::string>& m);
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

std::string CanonicalBdm(const BlockDeviceMapping& b);
std::string CanonicalKubelet(const KubeletConfiguration& k);

}  // namespace karp::aws

#endif  // KARP_SRC_AWS_NODECLASS_INTERNAL_H_
