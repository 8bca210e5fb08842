// User data per AMI family: bootstrap.sh (AL2), nodeadm NodeConfig (AL2023) and TOML settings
// (Bottlerocket), merged with the user's own data. Everything is written by hand so the output
// is deterministic and needs no YAML/TOML library: keys sorted, fixed MIME boundary.

#include "aws/userdata.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "aws/nodeclass_internal.h"
#include "aws/toml.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "karp/labels.h"

namespace karp::aws {

using internal::StrAppend;
using internal::StrCat;

namespace {

constexpr std::string_view kBoundary = "//";
constexpr std::string_view kUnregisteredTaintKey = "karpenter.sh/unregistered";

// ---------------------------------------------------------------------------------------------
// Labels and taints

bool HasDomain(std::string_view key, std::string_view domain) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view prefix = key.substr(0, slash);
  if (prefix == domain) return true;
  return prefix.size() > domain.size() &&
         prefix.compare(prefix.size() - domain.size(), domain.size(), domain) == 0 &&
         prefix[prefix.size() - domain.size() - 1] == '.';
}

std::vector<Taint> AllTaints(const std::vector<Taint>& taints) {
  std::vector<Taint> out;
  for (const Taint& t : taints) {
    bool dup = false;
    for (const Taint& o : out) dup = dup || o.Matches(t);
    if (!dup) out.push_back(t);
  }
  Taint unregistered{std::string(kUnregisteredTaintKey), "", TaintEffect::kNoExecute};
  bool has = false;
  for (const Taint& o : out) has = has || o.Matches(unregistered);
  if (!has) out.push_back(unregistered);
  return out;
}

// `key=value:Effect`, or `key:Effect` without a value (kubelet's --register-with-taints).
std::string TaintFlag(const Taint& t) {
  return t.value.empty() ? StrCat(t.key, ":", TaintEffectName(t.effect))
                         : StrCat(t.key, "=", t.value, ":", TaintEffectName(t.effect));
}

std::string NodeLabelsFlag(const std::map<std::string, std::string>& labels) {
  std::string out = "--node-labels=\"";
  bool first = true;
  for (const auto& [k, v] : labels) {
    StrAppend(&out, first ? "" : ",", k, "=", v);
    first = false;
  }
  out += "\"";
  return out;
}

std::string JoinKv(const std::map<std::string, std::string>& m, std::string_view sep) {
  std::string out;
  for (const auto& [k, v] : m) StrAppend(&out, out.empty() ? "" : ",", k, sep, v);
  return out;
}

// ---------------------------------------------------------------------------------------------
// MIME

struct MimePart {
  std::string content_type;
  std::string body;
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      if (start < text.size()) lines.push_back(text.substr(start));
      break;
    }
    std::string_view line = text.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = nl + 1;
  }
  return lines;
}

bool IsMime(std::string_view text) {
  return StartsWith(Lower(text.substr(0, 64)), "mime-version:") ||
         StartsWith(Lower(text.substr(0, 64)), "content-type: multipart/");
}

// Splits a multipart MIME document into its parts (header Content-Type and body).
absl::StatusOr<std::vector<MimePart>> ParseMime(std::string_view text) {
  std::vector<std::string_view> lines = Lines(text);
  size_t i = 0;
  std::string boundary;
  for (; i < lines.size() && !Trim(lines[i]).empty(); ++i) {
    const std::string lower = Lower(lines[i]);
    if (!StartsWith(lower, "content-type:")) continue;
    const size_t b = lower.find("boundary=");
    if (b == std::string::npos) continue;
    std::string_view v = Trim(lines[i].substr(b + 9));
    if (!v.empty() && v.front() == '"') {
      const size_t end = v.find('"', 1);
      if (end == std::string_view::npos) return absl::InvalidArgumentError("unterminated boundary");
      v = v.substr(1, end - 1);
    } else {
      v = v.substr(0, v.find(';'));
    }
    boundary = std::string(v);
  }
  if (boundary.empty()) {
    return absl::InvalidArgumentError("MIME user data has no multipart boundary");
  }
  const std::string delim = StrCat("--", boundary);
  const std::string close = StrCat(delim, "--");
  std::vector<MimePart> parts;
  MimePart* cur = nullptr;
  bool in_headers = false;
  for (++i; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (Trim(line) == close) break;
    if (Trim(line) == delim) {
      parts.emplace_back();
      cur = &parts.back();
      in_headers = true;
      continue;
    }
    if (cur == nullptr) continue;  // preamble
    if (in_headers) {
      if (Trim(line).empty()) {
        in_headers = false;
      } else if (StartsWith(Lower(line), "content-type:")) {
        cur->content_type = std::string(Trim(line.substr(13)));
      }
      continue;
    }
    StrAppend(&cur->body, line, "\n");
  }
  for (MimePart& p : parts) {
    // The line break before a delimiter belongs to the delimiter (RFC 2046 §5.1.1).
    if (!p.body.empty() && p.body.back() == '\n') p.body.pop_back();
  }
  return parts;
}

std::string WriteMime(const std::vector<MimePart>& parts) {
  std::string out =
      StrCat("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"", kBoundary, "\"\n\n");
  for (const MimePart& p : parts) {
    StrAppend(&out, "--", kBoundary, "\nContent-Type: ", p.content_type, "\n\n", p.body);
    if (out.back() != '\n') out += "\n";
  }
  StrAppend(&out, "--", kBoundary, "--\n");
  return out;
}

constexpr std::string_view kShellContentType = "text/x-shellscript; charset=\"us-ascii\"";
constexpr std::string_view kNodeConfigContentType = "application/node.eks.aws";

// The user's data as MIME parts: a MIME document's parts, or one part whose type is detected
// (a shell script, or on AL2023 a NodeConfig YAML).
absl::StatusOr<std::vector<MimePart>> UserParts(const std::optional<std::string>& data,
                                                bool allow_node_config) {
  if (!data.has_value() || Trim(*data).empty()) return std::vector<MimePart>{};
  if (IsMime(*data)) {
    absl::StatusOr<std::vector<MimePart>> parts = ParseMime(*data);
    if (!parts.ok()) {
      return absl::InvalidArgumentError(StrCat("spec.userData: ", parts.status().message()));
    }
    return parts;
  }
  if (allow_node_config && data->find("kind: NodeConfig") != std::string::npos) {
    return std::vector<MimePart>{{std::string(kNodeConfigContentType), *data}};
  }
  if (StartsWith(Trim(*data), "#!")) {
    return std::vector<MimePart>{{std::string(kShellContentType), *data}};
  }
  return absl::InvalidArgumentError(
      allow_node_config
          ? "spec.userData: expected a MIME multi-part document, a NodeConfig YAML or a shell "
            "script starting with #!"
          : "spec.userData: expected a MIME multi-part document or a shell script starting "
            "with #!");
}

// ---------------------------------------------------------------------------------------------
// AL2: bootstrap.sh

std::string ShellQuote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\"'\"'";
    } else {
      out += c;
    }
  }
  out += "'";
  return out;
}

// The kubelet flags of AL2's --kubelet-extra-args and Windows' -KubeletExtraArgs: node labels,
// taints, max pods and the kubelet settings of the NodeClass.
std::string KubeletExtraArgs(const BootstrapInput& in,
                             const std::map<std::string, std::string>& labels) {
  const KubeletConfiguration& k = in.kubelet;
  std::string extra = NodeLabelsFlag(labels);
  std::string taints;
  for (const Taint& t : AllTaints(in.taints)) {
    StrAppend(&taints, taints.empty() ? "" : ",", TaintFlag(t));
  }
  StrAppend(&extra, " --register-with-taints=\"", taints, "\"");
  if (in.max_pods.has_value()) StrAppend(&extra, " --max-pods=", *in.max_pods);
  if (k.pods_per_core.has_value()) StrAppend(&extra, " --pods-per-core=", *k.pods_per_core);
  if (!k.system_reserved.empty()) {
    StrAppend(&extra, " --system-reserved=\"", JoinKv(k.system_reserved, "="), "\"");
  }
  if (!k.kube_reserved.empty()) {
    StrAppend(&extra, " --kube-reserved=\"", JoinKv(k.kube_reserved, "="), "\"");
  }
  if (!k.eviction_hard.empty()) {
    StrAppend(&extra, " --eviction-hard=\"", JoinKv(k.eviction_hard, "<"), "\"");
  }
  if (!k.eviction_soft.empty()) {
    StrAppend(&extra, " --eviction-soft=\"", JoinKv(k.eviction_soft, "<"), "\"");
  }
  if (!k.eviction_soft_grace_period.empty()) {
    StrAppend(&extra, " --eviction-soft-grace-period=\"", JoinKv(k.eviction_soft_grace_period, "="),
              "\"");
  }
  if (k.eviction_max_pod_grace_period.has_value()) {
    StrAppend(&extra, " --eviction-max-pod-grace-period=", *k.eviction_max_pod_grace_period);
  }
  if (k.image_gc_high_threshold_percent.has_value()) {
    StrAppend(&extra, " --image-gc-high-threshold=", *k.image_gc_high_threshold_percent);
  }
  if (k.image_gc_low_threshold_percent.has_value()) {
    StrAppend(&extra, " --image-gc-low-threshold=", *k.image_gc_low_threshold_percent);
  }
  if (k.cpu_cfs_quota.has_value()) {
    StrAppend(&extra, " --cpu-cfs-quota=", *k.cpu_cfs_quota ? "true" : "false");
  }
  return extra;
}

// The cluster DNS address: kubelet clusterDNS first, else the cluster's.
std::string ClusterDns(const BootstrapInput& in) {
  return in.kubelet.cluster_dns.empty() ? in.cluster.dns_ip : in.kubelet.cluster_dns.front();
}

absl::StatusOr<std::string> RenderAl2(const BootstrapInput& in,
                                      const std::map<std::string, std::string>& labels) {
  const std::string extra = KubeletExtraArgs(in, labels);
  std::string script =
      "#!/bin/bash -xe\n"
      "exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n";
  StrAppend(&script, "/etc/eks/bootstrap.sh ", ShellQuote(in.cluster.name),
            " --apiserver-endpoint ", ShellQuote(in.cluster.endpoint), " --b64-cluster-ca ",
            ShellQuote(in.cluster.ca_bundle));
  const std::string dns = ClusterDns(in);
  if (!dns.empty()) StrAppend(&script, " \\\n--dns-cluster-ip ", ShellQuote(dns));
  if (in.max_pods.has_value()) script += " \\\n--use-max-pods false";
  if (in.raid0) script += " \\\n--local-disks raid0";
  StrAppend(&script, " \\\n--kubelet-extra-args ", ShellQuote(extra), "\n");

  KARP_ASSIGN_OR_RETURN(std::vector<MimePart> parts, UserParts(in.user_data, false));
  parts.push_back({std::string(kShellContentType), script});
  return WriteMime(parts);
}

// ---------------------------------------------------------------------------------------------
// Windows: Start-EKSBootstrap.ps1

// A PowerShell single-quoted string ('' stands for ').
std::string PsQuote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  out += "'";
  return out;
}

// The user's PowerShell without <powershell> tags of its own (it goes inside karp's block).
std::string UserPowerShell(std::string_view data) {
  auto strip = [](std::string_view t) {
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
    return t;
  };
  std::string_view t = strip(data);
  constexpr std::string_view kOpen = "<powershell>", kClose = "</powershell>";
  if (StartsWith(t, kOpen)) t.remove_prefix(kOpen.size());
  if (t.size() >= kClose.size() && t.substr(t.size() - kClose.size()) == kClose) {
    t.remove_suffix(kClose.size());
  }
  return std::string(strip(t));
}

std::string RenderWindows(const BootstrapInput& in,
                          const std::map<std::string, std::string>& labels) {
  std::string out = "<powershell>\n";
  if (in.user_data.has_value() && !UserPowerShell(*in.user_data).empty()) {
    StrAppend(&out, UserPowerShell(*in.user_data), "\n");
  }
  out +=
      "[string]$EKSBootstrapScriptFile = "
      "\"$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1\"\n";
  StrAppend(&out, "& $EKSBootstrapScriptFile -EKSClusterName ", PsQuote(in.cluster.name),
            " -APIServerEndpoint ", PsQuote(in.cluster.endpoint), " -Base64ClusterCA ",
            PsQuote(in.cluster.ca_bundle), " -KubeletExtraArgs ",
            PsQuote(KubeletExtraArgs(in, labels)));
  if (!ClusterDns(in).empty()) StrAppend(&out, " -DNSClusterIP ", PsQuote(ClusterDns(in)));
  out += "\n</powershell>";
  return out;
}

// ---------------------------------------------------------------------------------------------
// AL2023: nodeadm NodeConfig (YAML written by hand, keys sorted)

bool IsPlainYamlSafe(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '/' || c == '-' || c == '_' || c == '%';
    if (!ok) return false;
  }
  if (s.front() == '-' || s.front() == '.' || s.front() == '%') return false;
  // Anything YAML 1.1 or 1.2 could read as a number, boolean or null is quoted.
  const std::string lower = Lower(s);
  for (std::string_view word : {"true", "false", "yes", "no", "on", "off", "null", "y", "n"}) {
    if (lower == word) return false;
  }
  bool numeric = true;
  for (char c : s) numeric = numeric && ((c >= '0' && c <= '9') || c == '.' || c == '_');
  return !numeric || std::count(s.begin(), s.end(), '.') > 1;
}

std::string YamlString(std::string_view s) {
  if (IsPlainYamlSafe(s)) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          StrAppend(&out, "\\x", std::string(1, kHex[(c >> 4) & 0xf]),
                    std::string(1, kHex[c & 0xf]));
        } else {
          out += c;
        }
    }
  }
  out += "\"";
  return out;
}

void YamlMap(std::string* out, std::string_view indent, std::string_view key,
             const std::map<std::string, std::string>& m) {
  if (m.empty()) return;
  StrAppend(out, indent, key, ":\n");
  for (const auto& [k, v] : m) {
    StrAppend(out, indent, "  ", YamlString(k), ": ", YamlString(v), "\n");
  }
}

absl::StatusOr<std::string> RenderAl2023(const BootstrapInput& in,
                                         const std::map<std::string, std::string>& labels) {
  if (in.cluster.cidr.empty()) {
    return absl::InvalidArgumentError(
        "cluster.cidr: the service CIDR is required for AL2023 (nodeadm)");
  }
  const KubeletConfiguration& k = in.kubelet;
  std::string y =
      "# karp generated NodeConfig\n"
      "apiVersion: node.eks.aws/v1alpha1\n"
      "kind: NodeConfig\n"
      "spec:\n"
      "  cluster:\n";
  StrAppend(&y, "    apiServerEndpoint: ", YamlString(in.cluster.endpoint), "\n");
  StrAppend(&y, "    certificateAuthority: ", YamlString(in.cluster.ca_bundle), "\n");
  StrAppend(&y, "    cidr: ", YamlString(in.cluster.cidr), "\n");
  StrAppend(&y, "    name: ", YamlString(in.cluster.name), "\n");
  if (in.raid0) y += "  instance:\n    localStorage:\n      strategy: RAID0\n";
  y += "  kubelet:\n    config:\n";
  const std::string_view ind = "      ";
  std::vector<std::string> dns = k.cluster_dns;
  if (dns.empty() && !in.cluster.dns_ip.empty()) dns.push_back(in.cluster.dns_ip);
  if (!dns.empty()) {
    StrAppend(&y, ind, "clusterDNS:\n");
    for (const std::string& d : dns) StrAppend(&y, ind, "- ", YamlString(d), "\n");
  }
  if (k.cpu_cfs_quota.has_value()) {
    StrAppend(&y, ind, "cpuCFSQuota: ", *k.cpu_cfs_quota ? "true" : "false", "\n");
  }
  YamlMap(&y, ind, "evictionHard", k.eviction_hard);
  if (k.eviction_max_pod_grace_period.has_value()) {
    StrAppend(&y, ind, "evictionMaxPodGracePeriod: ", *k.eviction_max_pod_grace_period, "\n");
  }
  YamlMap(&y, ind, "evictionSoft", k.eviction_soft);
  YamlMap(&y, ind, "evictionSoftGracePeriod", k.eviction_soft_grace_period);
  if (k.image_gc_high_threshold_percent.has_value()) {
    StrAppend(&y, ind, "imageGCHighThresholdPercent: ", *k.image_gc_high_threshold_percent, "\n");
  }
  if (k.image_gc_low_threshold_percent.has_value()) {
    StrAppend(&y, ind, "imageGCLowThresholdPercent: ", *k.image_gc_low_threshold_percent, "\n");
  }
  YamlMap(&y, ind, "kubeReserved", k.kube_reserved);
  if (in.max_pods.has_value()) StrAppend(&y, ind, "maxPods: ", *in.max_pods, "\n");
  if (k.pods_per_core.has_value()) StrAppend(&y, ind, "podsPerCore: ", *k.pods_per_core, "\n");
  StrAppend(&y, ind, "registerWithTaints:\n");
  for (const Taint& t : AllTaints(in.taints)) {
    StrAppend(&y, ind, "- effect: ", TaintEffectName(t.effect), "\n");
    StrAppend(&y, ind, "  key: ", YamlString(t.key), "\n");
    if (!t.value.empty()) StrAppend(&y, ind, "  value: ", YamlString(t.value), "\n");
  }
  YamlMap(&y, ind, "systemReserved", k.system_reserved);
  StrAppend(&y, "    flags:\n    - ", YamlString(NodeLabelsFlag(labels)), "\n");

  KARP_ASSIGN_OR_RETURN(std::vector<MimePart> parts, UserParts(in.user_data, true));
  parts.push_back({std::string(kNodeConfigContentType), y});
  return WriteMime(parts);
}

// ---------------------------------------------------------------------------------------------
// Bottlerocket: a TOML subset (tables, dotted and quoted keys, strings, integers, floats,
// booleans, arrays) read from the user's data, karp's settings merged in, written sorted.

absl::StatusOr<std::string> RenderBottlerocket(const BootstrapInput& in,
                                               const std::map<std::string, std::string>& labels) {
  TomlValue root;
  if (in.user_data.has_value()) {
    absl::StatusOr<TomlValue> parsed = ParseToml(*in.user_data);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          StrCat("spec.userData: invalid Bottlerocket TOML: ", parsed.status().message()));
    }
    root = *std::move(parsed);
  }
  TomlValue& settings = root.table["settings"];
  TomlValue& kube = settings.table["kubernetes"];
  if (settings.type != TomlValue::Type::kTable || kube.type != TomlValue::Type::kTable) {
    return absl::InvalidArgumentError(
        "spec.userData: settings.kubernetes must be a table in Bottlerocket TOML");
  }
  const KubeletConfiguration& k = in.kubelet;
  kube.table["cluster-name"] = TomlValue::String(in.cluster.name);
  kube.table["api-server"] = TomlValue::String(in.cluster.endpoint);
  kube.table["cluster-certificate"] = TomlValue::String(in.cluster.ca_bundle);
  std::vector<std::string> dns = k.cluster_dns;
  if (dns.empty() && !in.cluster.dns_ip.empty()) dns.push_back(in.cluster.dns_ip);
  if (dns.size() == 1) {
    kube.table["cluster-dns-ip"] = TomlValue::String(dns.front());
  } else if (dns.size() > 1) {
    TomlValue arr;
    arr.type = TomlValue::Type::kArray;
    for (const std::string& d : dns) arr.array.push_back(TomlValue::String(d));
    kube.table["cluster-dns-ip"] = arr;
  }
  if (in.max_pods.has_value()) kube.table["max-pods"] = TomlValue::Integer(*in.max_pods);
  // Labels merge with the user's (karp's win); taints are karp's only.
  TomlValue& node_labels = kube.table["node-labels"];
  if (node_labels.type != TomlValue::Type::kTable) node_labels = TomlValue();
  for (const auto& [key, v] : labels) node_labels.table[key] = TomlValue::String(v);
  TomlValue taints;
  for (const Taint& t : AllTaints(in.taints)) {
    TomlValue& list = taints.table[t.key];
    list.type = TomlValue::Type::kArray;
    list.array.push_back(TomlValue::String(StrCat(t.value, ":", TaintEffectName(t.effect))));
  }
  kube.table["node-taints"] = taints;
  auto set_map = [&kube](std::string_view key, const std::map<std::string, std::string>& m) {
    if (!m.empty()) kube.table[std::string(key)] = TomlStringTable(m);
  };
  set_map("kube-reserved", k.kube_reserved);
  set_map("system-reserved", k.system_reserved);
  set_map("eviction-hard", k.eviction_hard);
  set_map("eviction-soft", k.eviction_soft);
  set_map("eviction-soft-grace-period", k.eviction_soft_grace_period);
  if (k.eviction_max_pod_grace_period.has_value()) {
    kube.table["eviction-max-pod-grace-period"] =
        TomlValue::Integer(*k.eviction_max_pod_grace_period);
  }
  if (k.image_gc_high_threshold_percent.has_value()) {
    kube.table["image-gc-high-threshold-percent"] =
        TomlValue::Integer(*k.image_gc_high_threshold_percent);
  }
  if (k.image_gc_low_threshold_percent.has_value()) {
    kube.table["image-gc-low-threshold-percent"] =
        TomlValue::Integer(*k.image_gc_low_threshold_percent);
  }
  if (k.cpu_cfs_quota.has_value()) {
    TomlValue b;
    b.type = TomlValue::Type::kBool;
    b.b = *k.cpu_cfs_quota;
    kube.table["cpu-cfs-quota"] = b;
  }
  if (in.raid0) {
    TomlValue& cmds = settings.table["bootstrap-commands"].table["000-mount-instance-storage"];
    TomlValue commands;
    commands.type = TomlValue::Type::kArray;
    for (std::string_view c : {"ephemeral-storage init",
                               "ephemeral-storage bind --dirs "
                               "/var/lib/containerd /var/lib/kubelet "
                               "/var/log/pods"}) {
      TomlValue cmd;
      cmd.type = TomlValue::Type::kArray;
      cmd.array.push_back(TomlValue::String("apiclient"));
      std::string_view rest = c;
      size_t sp;
      while ((sp = rest.find(' ')) != std::string_view::npos) {
        cmd.array.push_back(TomlValue::String(std::string(rest.substr(0, sp))));
        rest.remove_prefix(sp + 1);
      }
      cmd.array.push_back(TomlValue::String(std::string(rest)));
      commands.array.push_back(cmd);
    }
    cmds.table["commands"] = commands;
    cmds.table["essential"].type = TomlValue::Type::kBool;
    cmds.table["essential"].b = true;
    cmds.table["mode"] = TomlValue::String("always");
  }
  std::string out;
  WriteToml(root, "", &out);
  return out;
}

}  // namespace

std::map<std::string, std::string> KubeletSettableLabels(
    const std::map<std::string, std::string>& labels) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : labels) {
    if (HasDomain(k, "node-restriction.kubernetes.io")) {
      out.emplace(k, v);
    } else if (!HasDomain(k, "kubernetes.io") && !HasDomain(k, "k8s.io")) {
      out.emplace(k, v);
    }
  }
  return out;
}

BootstrapInput MakeBootstrapInput(const Ec2NodeClass& node_class, const NodePool& pool,
                                  std::string_view capacity_type, const ClusterInfo& cluster,
                                  std::optional<int64_t> max_pods) {
  BootstrapInput in;
  in.family = node_class.ResolvedAmiFamily();
  in.cluster = cluster;
  // Single-valued In requirements become labels, as on the reference's NodeClaims.
  for (const NodeSelectorRequirement& r : pool.requirements) {
    if (r.op == Operator::kIn && r.values.size() == 1) in.labels[r.key] = r.values.front();
  }
  for (const auto& [k, v] : pool.template_labels) in.labels[k] = v;
  in.labels[std::string(kLabelNodePool)] = pool.metadata.name;
  in.labels[std::string(kTagKeyEc2NodeClass)] = node_class.metadata.name;
  in.labels[std::string(kLabelCapacityType)] = std::string(capacity_type);
  if (in.family != AwsAmiFamily::kCustom) in.labels[std::string(kLabelDoNotSyncTaints)] = "true";
  in.taints = pool.taints;
  in.taints.insert(in.taints.end(), pool.startup_taints.begin(), pool.startup_taints.end());
  in.max_pods = max_pods;
  in.kubelet = node_class.kubelet;
  in.user_data = node_class.user_data;
  in.raid0 = node_class.instance_store_policy == "RAID0";
  return in;
}

absl::StatusOr<std::string> RenderUserData(const BootstrapInput& input) {
  if (input.family == AwsAmiFamily::kCustom) return input.user_data.value_or("");
  if (input.cluster.name.empty()) return absl::InvalidArgumentError("cluster.name: required");
  if (input.cluster.endpoint.empty()) {
    return absl::InvalidArgumentError("cluster.endpoint: required");
  }
  if (input.cluster.ca_bundle.empty()) {
    return absl::InvalidArgumentError("cluster.ca_bundle: required");
  }
  const std::map<std::string, std::string> labels = KubeletSettableLabels(input.labels);
  switch (input.family) {
    case AwsAmiFamily::kAl2:
      return RenderAl2(input, labels);
    case AwsAmiFamily::kBottlerocket:
      return RenderBottlerocket(input, labels);
    case AwsAmiFamily::kWindows2019:
    case AwsAmiFamily::kWindows2022:
    case AwsAmiFamily::kWindows2025:
      return RenderWindows(input, labels);
    default:
      return RenderAl2023(input, labels);
  }
}

std::string Base64Encode(std::string_view data) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    const uint32_t n = (static_cast<uint8_t>(data[i]) << 16) |
                       (static_cast<uint8_t>(data[i + 1]) << 8) | static_cast<uint8_t>(data[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  if (i + 1 == data.size()) {
    const uint32_t n = static_cast<uint8_t>(data[i]) << 16;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += "==";
  } else if (i + 2 == data.size()) {
    const uint32_t n =
        (static_cast<uint8_t>(data[i]) << 16) | (static_cast<uint8_t>(data[i + 1]) << 8);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += '=';
  }
  return out;
}

}  // namespace karp::aws
