// NodeOverlay validation and price arithmetic (karp/node_overlay.h).

#include "karp/node_overlay.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

#include "internal/strings.h"
#include "karp/labels.h"

namespace karp {
namespace {

bool Digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// `\d*\.?\d+` over the whole of `s`.
bool LooseDecimal(std::string_view s) {
  if (s.empty() || !Digit(s.back())) return false;
  size_t dots = 0;
  for (char c : s) {
    if (c == '.') {
      ++dots;
    } else if (!Digit(c)) {
      return false;
    }
  }
  if (dots > 1) return false;
  // A dot must be followed by a digit (the last character is one).
  return true;
}

absl::Status FieldError(std::string_view field, std::string_view why) {
  return absl::InvalidArgumentError(internal::StrCat(field, ": ", why));
}

}  // namespace

bool IsOverlayPrice(std::string_view text) {
  // ^\d+(\.\d+)?$
  const size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  if (whole.empty() || !std::all_of(whole.begin(), whole.end(), Digit)) return false;
  if (dot == std::string_view::npos) return true;
  const std::string_view fraction = text.substr(dot + 1);
  return !fraction.empty() && std::all_of(fraction.begin(), fraction.end(), Digit);
}

bool IsOverlayPriceAdjustment(std::string_view text) {
  if (text.size() < 2 || (text[0] != '+' && text[0] != '-')) return false;
  const bool plus = text[0] == '+';
  std::string_view body = text.substr(1);
  if (body.back() != '%') return LooseDecimal(body);  // a delta, either sign
  body.remove_suffix(1);
  if (plus) return LooseDecimal(body);  // any positive percentage
  if (body == "100") return true;
  // -\d{1,2}(\.\d+)?%
  const size_t dot = body.find('.');
  const std::string_view whole = body.substr(0, dot);
  if (whole.empty() || whole.size() > 2 || !std::all_of(whole.begin(), whole.end(), Digit)) {
    return false;
  }
  if (dot == std::string_view::npos) return true;
  const std::string_view fraction = body.substr(dot + 1);
  return !fraction.empty() && std::all_of(fraction.begin(), fraction.end(), Digit);
}

absl::StatusOr<double> AdjustedPrice(double price, std::string_view change) {
  if (change.empty()) return price;
  const std::string text(change);
  if (change[0] != '+' && change[0] != '-') {
    if (!IsOverlayPrice(change)) {
      return absl::InvalidArgumentError(internal::StrCat("invalid price \"", change, "\""));
    }
    return std::strtod(text.c_str(), nullptr);
  }
  if (!IsOverlayPriceAdjustment(change)) {
    return absl::InvalidArgumentError(
        internal::StrCat("invalid price adjustment \"", change, "\""));
  }
  double adjusted = 0;
  if (change.back() == '%') {
    const double percent = std::strtod(text.substr(0, text.size() - 1).c_str(), nullptr);
    adjusted = price * (1 + percent / 100);
  } else {
    adjusted = price + std::strtod(text.c_str(), nullptr);
  }
  return adjusted < 0 ? 0.0 : adjusted;
}

absl::Status ValidateNodeOverlay(const NodeOverlay& overlay) {
  if (overlay.price && overlay.price_adjustment) {
    return FieldError("spec", "cannot set both 'price' and 'priceAdjustment'");
  }
  if (overlay.price && !IsOverlayPrice(*overlay.price)) {
    return FieldError(
        "spec.price",
        internal::StrCat("\"", *overlay.price, "\" is not an unsigned decimal (e.g. \"0.5\")"));
  }
  if (overlay.price_adjustment && !IsOverlayPriceAdjustment(*overlay.price_adjustment)) {
    return FieldError("spec.priceAdjustment",
                      internal::StrCat("\"", *overlay.price_adjustment,
                                       "\" is not a change such as \"+0.5\", \"-10%\""));
  }
  if (overlay.weight && (*overlay.weight < 1 || *overlay.weight > 10000)) {
    return FieldError("spec.weight", internal::StrCat(*overlay.weight, " is not in 1..10000"));
  }
  absl::Status capacity = absl::OkStatus();
  overlay.capacity.ForEach([&](std::string_view name, int64_t) {
    if (capacity.ok() && (name == kResourceCpu || name == kResourceMemory ||
                          name == kResourceEphemeralStorage || name == kResourcePods)) {
      capacity = FieldError(internal::StrCat("spec.capacity.", name),
                            "only extended resources may be overlaid (not cpu, memory, "
                            "ephemeral-storage or pods)");
    }
  });
  if (!capacity.ok()) return capacity;
  for (size_t i = 0; i < overlay.requirements.size(); ++i) {
    const NodeSelectorRequirement& r = overlay.requirements[i];
    const std::string field = internal::StrCat("spec.requirements[", i, "]");
    if (r.key == kLabelHostname) {
      return FieldError(field, internal::StrCat("key ", r.key, " is restricted"));
    }
    const std::string_view domain = r.key.find('/') == std::string::npos
                                        ? ""
                                        : std::string_view(r.key).substr(0, r.key.find('/'));
    const bool karpenter_domain =
        domain == "karpenter.sh" ||
        (domain.size() > 13 && domain.substr(domain.size() - 13) == ".karpenter.sh");
    if (karpenter_domain && r.key != kLabelCapacityType && r.key != kLabelNodePool) {
      return FieldError(field, internal::StrCat("key ", r.key,
                                                " is in the restricted domain "
                                                "karpenter.sh"));
    }
    if ((r.op == Operator::kIn || r.op == Operator::kNotIn) && r.values.empty()) {
      return FieldError(field, internal::StrCat("operator ", OperatorName(r.op), " on ", r.key,
                                                " needs at least one value"));
    }
    if (absl::Status s = ValidateRequirement(r); !s.ok()) {
      return FieldError(field, internal::Message(s));
    }
  }
  return absl::OkStatus();
}

void OrderNodeOverlays(std::vector<NodeOverlay>& overlays) {
  std::stable_sort(overlays.begin(), overlays.end(),
                   [](const NodeOverlay& a, const NodeOverlay& b) {
                     const int32_t wa = a.weight.value_or(0), wb = b.weight.value_or(0);
                     if (wa != wb) return wa > wb;
                     return a.metadata.name > b.metadata.name;
                   });
}

}  // namespace karp
