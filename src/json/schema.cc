// The strict field check of schema.h.

#include "json/schema.h"

#include <algorithm>
#include <cctype>

#include "internal/nearest_name.h"
#include "internal/strings.h"
#include "json/field_reader.h"

namespace karp::json::codec_internal {
namespace {

// One step of the path to a value, built into text only for a message.
struct PathStep {
  const PathStep* parent;
  std::string_view base;  // the root's path (parent == nullptr)
  std::string_view key;   // a member's key, or empty for an element
  size_t index;           // an element's index
};

std::string PathText(const PathStep& s) {
  if (s.parent == nullptr) return std::string(s.base);
  std::string parent = PathText(*s.parent);
  return s.key.data() != nullptr ? JoinPath(parent, s.key) : IndexPath(parent, s.index);
}

std::string_view KeyOf(const Json::const_iterator& it) { return it.key(); }

// Byte order of two short names, inline (field names are about ten bytes: a call to memcmp
// per comparison costs more than the comparison).
inline int Compare(std::string_view a, std::string_view b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) {
      return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]) ? -1 : 1;
    }
  }
  return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

template <typename V>
class Walker {
 public:
  Walker(size_t limit, std::vector<std::string>* out) : limit_(limit), out_(out) {}

  void Walk(const V& v, int node, const PathStep& at) {
    const SchemaNode& n = kSchemaNodes[node];
    switch (n.shape) {
      case SchemaShape::kLeaf:
        return;
      case SchemaShape::kArray:
        if (!v.is_array()) return;
        for (size_t i = 0; i < v.size(); ++i) {
          Walk(v[i], n.a, PathStep{&at, {}, {}, i});
        }
        return;
      case SchemaShape::kMap:
        if (!v.is_object()) return;
        if (kSchemaNodes[n.a].shape == SchemaShape::kLeaf) return;
        ForMembers(v, [&](std::string_view key, const V& value) {
          Walk(value, n.a, PathStep{&at, {}, key, 0});
        });
        return;
      case SchemaShape::kObject:
        if (!v.is_object()) return;
        WalkObject(v, n, at);
        return;
    }
  }

  size_t found() const { return found_; }

 private:
  // Members and fields are both sorted by key (nlohmann's std::map and the fast reader's
  // members: byte order), so each member's field is found after the previous one's.
  void WalkObject(const V& v, const SchemaNode& n, const PathStep& at) {
    const SchemaField* field = kSchemaFields + n.a;
    const SchemaField* const end = field + n.b;
    ForMembers(v, [&](std::string_view key, const V& value) {
      // A binary search from the last field found: an object usually sets few of its
      // schema's fields (a PodSpec has about 40).
      field = std::lower_bound(field, end, key, [](const SchemaField& f, std::string_view k) {
        return Compare(f.name, k) < 0;
      });
      if (field != end && Compare(field->name, key) == 0) {
        Walk(value, field->node, PathStep{&at, {}, key, 0});
      } else {
        Unknown(n, key, at);
      }
    });
  }

  void Unknown(const SchemaNode& n, std::string_view key, const PathStep& at) {
    if (found_++ >= limit_) return;
    std::vector<std::string_view> names;
    names.reserve(n.b);
    for (size_t i = 0; i < n.b; ++i) names.push_back(kSchemaFields[n.a + i].name);
    // A key of any length is named by its first 200 bytes.
    constexpr size_t kShownKey = 200;
    std::string shown(key.substr(0, kShownKey));
    if (key.size() > kShownKey) {
      shown += internal::StrCat("... (", key.size() - kShownKey, " more bytes)");
    }
    std::string message = internal::StrCat(JoinPath(PathText(at), shown), ": unknown field");
    if (std::string_view near = NearestName(key, names); !near.empty()) {
      message += internal::StrCat("; did you mean ", near, "?");
    }
    out_->push_back(std::move(message));
  }

  template <typename Fn>
  static void ForMembers(const Json& o, Fn&& fn) {
    for (auto it = o.begin(); it != o.end(); ++it) fn(KeyOf(it), *it);
  }
  template <typename Fn>
  static void ForMembers(const LiteValue& o, Fn&& fn) {
    for (const LiteValue::Member& m : o) fn(m.key, m.value);
  }

  size_t limit_;
  std::vector<std::string>* out_;
  size_t found_ = 0;
};

}  // namespace

int FindSchema(std::string_view api_version, std::string_view kind) {
  for (size_t i = 0; i < kSchemaRootCount; ++i) {
    if (kSchemaRoots[i].kind == kind && kSchemaRoots[i].api_version == api_version) {
      return kSchemaRoots[i].node;
    }
  }
  return -1;
}

std::string_view NearestName(std::string_view key, const std::vector<std::string_view>& names) {
  return internal::NearestName(key, names);
}

template <typename V>
size_t FindUnknownFields(const V& v, int node, std::string_view path, size_t limit,
                         std::vector<std::string>* out) {
  Walker<V> walker(limit, out);
  walker.Walk(v, node, PathStep{nullptr, path, {}, 0});
  return walker.found();
}

template <typename V>
absl::Status CheckKnownFields(const V& v, int node, std::string_view path,
                              FieldValidation validation, std::string_view source,
                              std::vector<std::string>* warnings, size_t* unreported) {
  if (validation == FieldValidation::kIgnore || node < 0) return absl::OkStatus();
  std::vector<std::string> found;
  const size_t room =
      validation == FieldValidation::kStrict
          ? 1
          : (warnings->size() < kMaxFieldWarnings ? kMaxFieldWarnings - warnings->size() : 0);
  const size_t all = FindUnknownFields(v, node, path, room, &found);
  if (all == 0) return absl::OkStatus();
  if (validation == FieldValidation::kStrict) {
    return absl::InvalidArgumentError(found.front());
  }
  for (std::string& f : found) {
    warnings->push_back(internal::StrCat(source, ": ", f, " (ignored)"));
  }
  *unreported += all - found.size();
  return absl::OkStatus();
}

template size_t FindUnknownFields(const Json&, int, std::string_view, size_t,
                                  std::vector<std::string>*);
template size_t FindUnknownFields(const LiteValue&, int, std::string_view, size_t,
                                  std::vector<std::string>*);
template absl::Status CheckKnownFields(const Json&, int, std::string_view, FieldValidation,
                                       std::string_view, std::vector<std::string>*, size_t*);
template absl::Status CheckKnownFields(const LiteValue&, int, std::string_view, FieldValidation,
                                       std::string_view, std::vector<std::string>*, size_t*);

}  // namespace karp::json::codec_internal
