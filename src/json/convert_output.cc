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
  return api_version == codec_internal::kApiAwsV1 && kind == "EC2NodeClass";
}

// The status with the input's control characters and invalid UTF-8 escaped.
absl::Status Escaped(const absl::Status& s) {
  return absl::Status(s.code(), internal::EscapeForMessage(internal::Message(s)));
}

// Collects the objects of every input, then converts and writes them.
class ConvertRun {
 public:
  absl::Status Input(std::string_view text, std::string_view source) {
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

  absl::StatusOr<Conversion> Finish(ConvertFormat format) {
    KARP_ASSIGN_OR_RETURN(std::vector<ConvertedObject> objects,
                          converter_.Finish([](const std::string&) { return std::nullopt; }));
    for (const ConvertedObject& c : objects) KARP_RETURN_IF_ERROR(CheckV1(c));
    result_.warnings = converter_.warnings();
    result_.output = WriteObjects(objects, format);
    return std::move(result_);
  }

 private:
  absl::Status Object(const codec_internal::KubernetesObject& o, const std::string& source) {
    if (codec_internal::IsOldApiObject(o.kind, o.api_version)) {
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

  // A NodePool, NodeClaim or EC2NodeClass must pass karp's v1 decoder and field rules.
  static absl::Status CheckV1(const ConvertedObject& c) {
    const std::string kind = c.object.value("kind", "");
    if (kind != "NodePool" && kind != "NodeClaim" && kind != "EC2NodeClass") {
      return absl::OkStatus();
    }
    const std::string where =
        c.from.empty() ? SourcePath(c.source, c.path)
                       : internal::StrCat(SourcePath(c.source, c.path), ": as converted to ",
                                          c.object.value("apiVersion", ""), " ", kind);
    absl::StatusOr<ClusterSnapshot> snap = ParseSnapshot(codec_internal::Dump(c.object, -1), where);
    return snap.status();
  }

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
    ConvertRun run;
    KARP_RETURN_IF_ERROR(run.Input(text, source));
    return run.Finish(format);
  });
}

absl::StatusOr<Conversion> ConvertFiles(const std::vector<std::string>& paths, ConvertFormat format,
                                        const ReadOptions& options) {
  return Guarded([&]() -> absl::StatusOr<Conversion> {
    ConvertRun run;
    for (const std::string& path : paths) {
      KARP_ASSIGN_OR_RETURN(std::string text, codec_internal::ReadWholeFile(path, options));
      KARP_RETURN_IF_ERROR(run.Input(text, path));
    }
    return run.Finish(format);
  });
}

}  // namespace karp::json
