// karp::json::ConvertText / ConvertFiles (karp/json/convert.h): reads the inputs, converts the
// older-API objects (json/convert_old_api.h), checks the converted NodePools, NodeClaims and
// EC2NodeClasses with the v1 decoder, and writes the v1 objects as YAML documents or a JSON List.

#include <yaml-cpp/yaml.h>

#include <exception>
#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/convert_old_api.h"
#include "json/document.h"
#include "json/encoders.h"
#include "json/field_reader.h"
#include "json/schema.h"
#include "karp/json/convert.h"

namespace karp::json {
namespace {

using codec_internal::ConvertedObject;
using codec_internal::Json;
using codec_internal::SourcePath;

// Whether a plain YAML scalar `s` would read back as something else than this string: empty,
// null, a boolean (YAML 1.1 words too, for kubectl's reader) or a number.
bool NeedsQuotes(const std::string& s) {
  static const std::regex kNotString(
      "|~|null|Null|NULL|[yY]|[nN]|yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|"
      "on|On|ON|off|Off|OFF|[-+]?(\\.[0-9]+|[0-9][0-9_]*(\\.[0-9_]*)?)([eE][-+]?[0-9]+)?|"
      "0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)|[0-9]+(:[0-5]?[0-9])+");
  return std::regex_match(s, kNotString);
}

// A multi-line string that a literal block scalar (`|`, clip chomping) reproduces exactly.
bool LiteralBlockFits(const std::string& s) {
  if (s.size() < 2 || s.back() != '\n' || s[s.size() - 2] == '\n') return false;
  if (s.front() == ' ' || s.front() == '\t' || s.front() == '\n') return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 && c != '\n') return false;
    if (c == '\n' && i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t')) return false;
  }
  return true;
}

void EmitString(YAML::Emitter& out, const std::string& s) {
  if (s.find('\n') != std::string::npos) {
    out << (LiteralBlockFits(s) ? YAML::Literal : YAML::DoubleQuoted) << s;
  } else if (NeedsQuotes(s)) {
    out << YAML::DoubleQuoted << s;
  } else {
    out << s;
  }
}

void EmitYaml(YAML::Emitter& out, const Json& j) {
  if (j.is_object()) {
    if (j.empty()) out << YAML::Flow;
    out << YAML::BeginMap;
    for (const auto& [key, value] : j.items()) {
      out << YAML::Key;
      EmitString(out, key);
      out << YAML::Value;
      EmitYaml(out, value);
    }
    out << YAML::EndMap;
  } else if (j.is_array()) {
    if (j.empty()) out << YAML::Flow;
    out << YAML::BeginSeq;
    for (const Json& item : j) EmitYaml(out, item);
    out << YAML::EndSeq;
  } else if (j.is_string()) {
    EmitString(out, j.get<std::string>());
  } else if (j.is_null()) {
    out << YAML::Null;
  } else {
    out << codec_internal::Dump(j, -1);  // numbers and booleans as JSON writes them
  }
}

std::string WriteObjects(const std::vector<ConvertedObject>& objects, ConvertFormat format) {
  if (format == ConvertFormat::kJson) {
    Json items = Json::array();
    for (const ConvertedObject& c : objects) items.push_back(c.object);
    const Json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}};
    return codec_internal::Dump(list, 2) + "\n";
  }
  std::string text;
  for (const ConvertedObject& c : objects) {
    YAML::Emitter out;
    EmitYaml(out, c.object);
    if (!text.empty()) text += "---\n";
    text += out.c_str();
    text += "\n";
  }
  return text;
}

bool IsV1Object(std::string_view kind, std::string_view api_version) {
  if (api_version == codec_internal::kApiV1) return kind == "NodePool" || kind == "NodeClaim";
  // NodeOverlay has no older form: the current one passes through.
  if (api_version == "karpenter.sh/v1alpha1") return kind == "NodeOverlay";
  return api_version == codec_internal::kApiAwsV1 && kind == "EC2NodeClass";
}

// The status with the input's control characters and invalid UTF-8 escaped.
absl::Status Escaped(const absl::Status& s) {
  return absl::Status(s.code(), internal::EscapeForMessage(internal::Message(s)));
}

// An item of a JSON List as the fast reader gives it: whole when karp converts or passes its
// kind through, otherwise only what names it (apiVersion, kind, metadata), so that the pods of
// a cluster dump are never copied into values.
Json ItemValue(const codec_internal::LiteValue& v) {
  const codec_internal::LiteValue* kind = v.Find("kind");
  const codec_internal::LiteValue* api_version = v.Find("apiVersion");
  if (kind == nullptr || !kind->is_string() || api_version == nullptr ||
      !api_version->is_string()) {
    return codec_internal::ToJson(v);
  }
  if (codec_internal::IsOldApiObject(kind->str(), api_version->str()) ||
      IsV1Object(kind->str(), api_version->str()) ||
      (kind->str().size() >= 4 && kind->str().substr(kind->str().size() - 4) == "List")) {
    return codec_internal::ToJson(v);
  }
  Json slim = Json::object();
  for (std::string_view key : {"apiVersion", "kind", "metadata"}) {
    if (const codec_internal::LiteValue* f = v.Find(key); f != nullptr) {
      slim[std::string(key)] = codec_internal::ToJson(*f);
    }
  }
  return slim;
}

// Collects the objects of every input, then converts and writes them.
class ConvertRun {
 public:
  explicit ConvertRun(FieldValidation validation) : validation_(validation) {}

  absl::Status Input(std::string_view text, std::string_view source) {
    KARP_RETURN_IF_ERROR(Escaped(codec_internal::CheckNoNulByte(text, source)));
    if (absl::Status s; InputStreamed(text, source, &s)) return s;
    absl::StatusOr<std::vector<codec_internal::Document>> docs =
        codec_internal::LoadDocuments(text, source);
    if (!docs.ok()) return Escaped(docs.status());
    const std::string src(source);
    int64_t seen = 0;
    for (const codec_internal::Document& doc : *docs) {
      absl::Status s = codec_internal::ForEachObject(
          doc.value, doc.path,
          [&](const codec_internal::KubernetesObject& o) { return Object(o, src); }, &seen);
      if (!s.ok()) {
        return Escaped(absl::InvalidArgumentError(SourcePath(src, internal::Message(s))));
      }
    }
    if (seen == 0) {
      return Escaped(absl::InvalidArgumentError(internal::StrCat("no objects in ", source)));
    }
    return absl::OkStatus();
  }

  // A JSON or YAML List whose items are converted as they are read, or several YAML
  // documents one at a time: a cluster dump piped through `karp convert` is never held whole
  // as values. The List's own errors come first, then the first item's, as when the document
  // is read whole; false (nothing changed) when this path does not apply.
  bool InputStreamed(std::string_view text, std::string_view source, absl::Status* status) {
    const std::string src(source);
    const ConvertRun saved = *this;
    int64_t seen = 0;
    bool streamed = false;
    absl::Status item_error;
    auto object = [&](const codec_internal::KubernetesObject& o) { return Object(o, src); };
    auto item = [&](const Json& v, size_t i) {
      streamed = true;
      if (item_error.ok()) {
        item_error = codec_internal::ForEachListItem(v, codec_internal::IndexPath("items", i),
                                                     object, &seen);
      }
    };
    std::optional<Json> root;
    if (codec_internal::IsJsonText(text)) {
      root = codec_internal::LoadJsonStreamingItems(
          text, [&](const codec_internal::LiteValue& v, size_t i) { item(ItemValue(v), i); });
    } else if (codec_internal::MayHoldSeveralYamlDocuments(text)) {
      absl::Status decoded;
      const absl::Status read = codec_internal::LoadYamlDocuments(
          text, source, [&](const Json& doc, const std::string& path) {
            if (decoded.ok()) decoded = codec_internal::ForEachObject(doc, path, object, &seen);
          });
      if (!read.ok()) {
        *status = Escaped(read);
        return true;
      }
      *status = decoded;
      return Finished(src, seen, status);
    } else {
      std::optional<absl::StatusOr<std::vector<codec_internal::Document>>> docs =
          codec_internal::LoadYamlStreamingItems(text, source, item);
      if (docs && docs->ok() && (*docs)->size() == 1) root = std::move((**docs)[0].value);
      if (docs && !docs->ok() && streamed) {
        *status = Escaped(docs->status());
        return true;
      }
    }
    if (!root || !streamed || !codec_internal::MayBeList(*root)) {
      *this = saved;
      return false;
    }
    *status = codec_internal::ForEachObject(*root, "", object, &seen);
    if (status->ok()) *status = item_error;
    return Finished(src, seen, status);
  }

  // The end of an input read by InputStreamed: a decoding error (a path) with the source, or
  // `no objects`.
  bool Finished(const std::string& source, int64_t seen, absl::Status* status) {
    if (!status->ok()) {
      *status = Escaped(absl::InvalidArgumentError(SourcePath(source, internal::Message(*status))));
    } else if (seen == 0) {
      *status = Escaped(absl::InvalidArgumentError(internal::StrCat("no objects in ", source)));
    }
    return true;
  }

  absl::StatusOr<Conversion> Finish(ConvertFormat format) {
    KARP_ASSIGN_OR_RETURN(std::vector<ConvertedObject> objects,
                          converter_.Finish([](const std::string&) { return std::nullopt; }));
    for (const ConvertedObject& c : objects) KARP_RETURN_IF_ERROR(CheckV1(c));
    result_.warnings = field_warnings_;
    for (const std::string& w : converter_.warnings()) result_.warnings.push_back(w);
    if (unreported_fields_ > 0) {
      result_.warnings.push_back(
          internal::StrCat("and ", unreported_fields_, " more unknown fields (ignored)"));
    }
    result_.output = WriteObjects(objects, format);
    return std::move(result_);
  }

 private:
  absl::Status Object(const codec_internal::KubernetesObject& o, const std::string& source) {
    const bool old_api = codec_internal::IsOldApiObject(o.kind, o.api_version);
    if ((old_api || IsV1Object(o.kind, o.api_version)) && o.item.value() != nullptr) {
      KARP_RETURN_IF_ERROR(codec_internal::CheckKnownFields(
          *o.item.value(), codec_internal::FindSchema(o.api_version, o.kind), o.item.path(),
          validation_, source, &field_warnings_, &unreported_fields_));
    }
    if (old_api) {
      ++result_.converted;
      return converter_.Add(o.item, o.kind, o.api_version, source);
    }
    if (IsV1Object(o.kind, o.api_version)) {
      ++result_.passed_through;
      // The item's JSON value: ForEachObject hands out a reader; its fields make the object.
      Json object = Json::object();
      for (std::string_view key : {"apiVersion", "kind", "metadata", "spec", "status"}) {
        if (const Json* v = o.item.Get(key); v != nullptr) object[std::string(key)] = *v;
      }
      converter_.AddAsIs(object, source, o.item.path());
      return absl::OkStatus();
    }
    result_.skipped.push_back(
        internal::StrCat(codec_internal::DescribeObject(o.item, o.kind, o.api_version),
                         " (not a kind karp converts)"));
    return absl::OkStatus();
  }

  // A NodePool, NodeClaim, EC2NodeClass or NodeOverlay must pass karp's decoder and field
  // rules.
  static absl::Status CheckV1(const ConvertedObject& c) {
    const std::string kind = c.object.value("kind", "");
    if (kind != "NodePool" && kind != "NodeClaim" && kind != "EC2NodeClass" &&
        kind != "NodeOverlay") {
      return absl::OkStatus();
    }
    const std::string where =
        c.from.empty() ? SourcePath(c.source, c.path)
                       : internal::StrCat(SourcePath(c.source, c.path), ": as converted to ",
                                          c.object.value("apiVersion", ""), " ", kind);
    absl::StatusOr<ClusterSnapshot> snap = ParseSnapshot(codec_internal::Dump(c.object, -1), where);
    return snap.status();
  }

  FieldValidation validation_;
  std::vector<std::string> field_warnings_;  // unknown fields (kWarn)
  size_t unreported_fields_ = 0;
  codec_internal::OldApiConverter converter_;
  Conversion result_;
};

absl::StatusOr<Conversion> Guarded(const std::function<absl::StatusOr<Conversion>()>& run) {
  try {
    return run();
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(internal::EscapeForMessage(e.what()));
  }
}

}  // namespace

absl::StatusOr<Conversion> ConvertText(std::string_view text, std::string_view source,
                                       ConvertFormat format) {
  return Guarded([&]() -> absl::StatusOr<Conversion> {
    ConvertRun run(FieldValidation::kStrict);
    KARP_RETURN_IF_ERROR(run.Input(text, source));
    return run.Finish(format);
  });
}

absl::StatusOr<Conversion> ConvertFiles(const std::vector<std::string>& paths, ConvertFormat format,
                                        const ReadOptions& options) {
  return Guarded([&]() -> absl::StatusOr<Conversion> {
    ConvertRun run(options.validation);
    for (const std::string& path : paths) {
      KARP_ASSIGN_OR_RETURN(std::string text, codec_internal::ReadWholeFile(path, options));
      KARP_RETURN_IF_ERROR(run.Input(text, path));
    }
    return run.Finish(format);
  });
}

}  // namespace karp::json
