// Label sets and label rules (see karp/labels.h).

#include <algorithm>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "internal/strings.h"
#include "karp/labels.h"

namespace karp {

LabelSet::LabelSet(std::initializer_list<std::string_view> keys) {
  for (std::string_view k : keys) Insert(k);
}

bool LabelSet::Contains(std::string_view key) const {
  return std::binary_search(keys_.begin(), keys_.end(), key, [](const auto& a, const auto& b) {
    return std::string_view(a) < std::string_view(b);
  });
}

void LabelSet::Insert(std::string_view key) {
  auto it = std::lower_bound(keys_.begin(), keys_.end(), key,
                             [](const std::string& a, std::string_view b) { return a < b; });
  if (it == keys_.end() || *it != key) keys_.insert(it, std::string(key));
}

void LabelSet::InsertAll(const LabelSet& other) {
  for (const std::string& k : other.keys_) Insert(k);
}

const LabelSet& WellKnownLabels() {
  static const LabelSet* const kSet =
      new LabelSet{kLabelNodePool, kLabelZone,         kLabelRegion, kLabelInstanceType,
                   kLabelArch,     kLabelCapacityType, kLabelOs,     kLabelWindowsBuild};
  return *kSet;
}

const LabelSet& RestrictedLabels() {
  static const LabelSet* const kSet = new LabelSet{kLabelHostname};
  return *kSet;
}

std::string_view NormalizeLabelKey(std::string_view key) {
  if (key == "failure-domain.beta.kubernetes.io/zone") return kLabelZone;
  if (key == "failure-domain.beta.kubernetes.io/region") return kLabelRegion;
  if (key == "beta.kubernetes.io/arch") return kLabelArch;
  if (key == "beta.kubernetes.io/os") return kLabelOs;
  if (key == "beta.kubernetes.io/instance-type") return kLabelInstanceType;
  return key;
}

namespace {

std::string_view Domain(std::string_view key) {
  size_t slash = key.find('/');
  return slash == std::string_view::npos ? std::string_view() : key.substr(0, slash);
}

constexpr std::string_view kRestrictedDomain = "karpenter.sh";

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// A name part: <= 63 chars of [A-Za-z0-9_.-], starting and ending alphanumeric.
bool IsNamePart(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  if (!IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

}  // namespace

absl::Status CheckRestrictedLabel(std::string_view key, const LabelSet& well_known) {
  if (well_known.Contains(key) || WellKnownLabels().Contains(key)) return absl::OkStatus();
  std::string_view domain = Domain(key);
  const bool restricted_domain =
      domain == kRestrictedDomain || (domain.size() > kRestrictedDomain.size() &&
                                      domain.substr(domain.size() - kRestrictedDomain.size() - 1) ==
                                          internal::StrCat(".", kRestrictedDomain));
  if (RestrictedLabels().Contains(key) || restricted_domain) {
    return absl::InvalidArgumentError(internal::StrCat(
        "using label ", key,
        " is not allowed as it might interfere with the internal provisioning logic; specify a "
        "well known label: [",
        absl::StrJoin(WellKnownLabels().keys(), " "),
        "], or a custom label that does not use a restricted domain: [", kRestrictedDomain, "]"));
  }
  return absl::OkStatus();
}

bool IsDnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (start <= s.size()) {
    size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty() || label.size() > 63) return false;
    auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (!lower_alnum(label.front()) || !lower_alnum(label.back())) return false;
    for (char c : label) {
      if (!lower_alnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return true;
}

bool IsDnsLabel(std::string_view s) {
  return s.size() <= 63 && s.find('.') == s.npos && IsDnsSubdomain(s);
}

absl::Status ValidateQualifiedName(std::string_view key) {
  size_t slash = key.find('/');
  std::string_view name = key;
  if (slash != std::string_view::npos) {
    std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (!IsDnsSubdomain(prefix)) {
      return absl::InvalidArgumentError(
          internal::StrCat("invalid label key \"", key, "\": prefix must be a DNS subdomain"));
    }
  }
  if (!IsNamePart(name)) {
    return absl::InvalidArgumentError(internal::StrCat(
        "invalid label key \"", key,
        "\": name must be 63 characters or less of [A-Za-z0-9_.-], starting and ending "
        "alphanumeric"));
  }
  return absl::OkStatus();
}

absl::Status ValidateLabelValue(std::string_view value) {
  if (value.empty() || IsNamePart(value)) return absl::OkStatus();
  return absl::InvalidArgumentError(internal::StrCat(
      "invalid label value \"", value,
      "\": must be 63 characters or less of [A-Za-z0-9_.-], starting and ending alphanumeric"));
}

}  // namespace karp
