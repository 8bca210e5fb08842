// Builders for EC2NodeClass pieces in the AWS adapter's tests (designated initializers of
// partially-set structs trip -Wmissing-field-initializers).

#ifndef KARP_TESTS_AWS_NODECLASS_TEST_UTIL_H_
#define KARP_TESTS_AWS_NODECLASS_TEST_UTIL_H_

#include <cstdint>
#include <map>
#include <string>

#include "karp/aws/ec2nodeclass.h"

namespace karp::aws::testing {

inline AmiSelectorTerm AliasTerm(std::string alias) {
  AmiSelectorTerm t;
  t.alias = std::move(alias);
  return t;
}
inline AmiSelectorTerm AmiIdTerm(std::string id) {
  AmiSelectorTerm t;
  t.id = std::move(id);
  return t;
}
inline AmiSelectorTerm AmiNameTerm(std::string name) {
  AmiSelectorTerm t;
  t.name = std::move(name);
  return t;
}
inline AmiSelectorTerm AmiTagTerm(std::map<std::string, std::string> tags) {
  AmiSelectorTerm t;
  t.tags = std::move(tags);
  return t;
}
inline SubnetSelectorTerm SubnetId(std::string id) {
  SubnetSelectorTerm t;
  t.id = std::move(id);
  return t;
}
inline SubnetSelectorTerm SubnetTags(std::map<std::string, std::string> tags) {
  SubnetSelectorTerm t;
  t.tags = std::move(tags);
  return t;
}
inline SecurityGroupSelectorTerm GroupId(std::string id) {
  SecurityGroupSelectorTerm t;
  t.id = std::move(id);
  return t;
}
inline SecurityGroupSelectorTerm GroupName(std::string name) {
  SecurityGroupSelectorTerm t;
  t.name = std::move(name);
  return t;
}
inline SecurityGroupSelectorTerm GroupTags(std::map<std::string, std::string> tags) {
  SecurityGroupSelectorTerm t;
  t.tags = std::move(tags);
  return t;
}
inline BlockDeviceMapping Volume(std::string device, int64_t bytes, std::string type = "") {
  BlockDeviceMapping m;
  m.device_name = std::move(device);
  m.ebs.volume_size = bytes;
  m.ebs.volume_type = std::move(type);
  return m;
}

}  // namespace karp::aws::testing

#endif  // KARP_TESTS_AWS_NODECLASS_TEST_UTIL_H_
