// LoadOpenbTrace: the Alibaba "openb" GPU cluster trace (CSV) as a simulator trace. A small
// hand parser: the file is plain comma-separated values without quoting.

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "internal/strings.h"
#include "karp/labels.h"
#include "karp/sim/simulator.h"

namespace karp::sim {
namespace {

constexpr std::string_view kGpu = "nvidia.com/gpu";

// The longest line read: a real row is under 200 bytes, and without a bound a file with no line
// break (`--openb /dev/zero`) would be read into memory whole.
constexpr size_t kMaxLineBytes = size_t{1} << 20;
// The most lines read and pods replayed: the public openb traces have about 8,000 rows, and an
// endless input (`yes ''`, a FIFO) would otherwise be read forever or fill memory.
constexpr int64_t kMaxLines = 10'000'000;
constexpr size_t kMaxPods = 1'000'000;

enum class LineRead { kLine, kEnd, kTooLong };

// Reads the next line of `in` into *line, without its line break ("\n" or "\r\n"), through
// `buf` (kMaxLineBytes + 1 bytes): a longer line is refused once kMaxLineBytes are read. kEnd
// at the end of the input or on a read error (in.bad()).
LineRead NextLine(std::istream& in, std::vector<char>& buf, std::string* line) {
  in.getline(buf.data(), static_cast<std::streamsize>(buf.size()));
  const auto read = static_cast<size_t>(in.gcount());
  if (in.bad() || (in.fail() && read == 0 && in.eof())) return LineRead::kEnd;
  if (in.fail()) return LineRead::kTooLong;  // buf filled before a line break
  // gcount counts the '\n' when it was read (always, except for a last line without one).
  line->assign(buf.data(), in.eof() ? read : read - 1);
  if (!line->empty() && line->back() == '\r') line->pop_back();
  return LineRead::kLine;
}

absl::Status LineTooLong(const std::string& path, int64_t line_no) {
  return absl::InvalidArgumentError(internal::StrCat(internal::EscapeForMessage(path), ": line ",
                                                     line_no, ": longer than ", kMaxLineBytes,
                                                     " bytes (not an openb CSV file?)"));
}

NodePool MakePool(std::string name, std::vector<NodeSelectorRequirement> reqs) {
  NodePool np;
  np.metadata.name = std::move(name);
  np.requirements = std::move(reqs);
  np.requirements.push_back({std::string(kLabelArch), Operator::kIn, {"amd64"}, std::nullopt});
  np.requirements.push_back({std::string(kLabelOs), Operator::kIn, {"linux"}, std::nullopt});
  np.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  np.consolidate_after = absl::Minutes(1);
  return np;
}

// The two NodePools of an openb replay (general purpose, and GPU with a taint) and their
// baseline instance types.
void AddCluster(Trace* trace) {
  NodePool def = MakePool(
      "default",
      {{"karpenter.k8s.aws/instance-category", Operator::kIn, {"c", "m", "r"}, std::nullopt},
       {"karpenter.k8s.aws/instance-generation", Operator::kGt, {"4"}, std::nullopt}});
  NodePool gpu = MakePool("gpu", {{"karpenter.k8s.aws/instance-family",
                                   Operator::kIn,
                                   {"g4dn", "g5", "g6", "p3", "p4d", "p5"},
                                   std::nullopt}});
  gpu.taints.push_back({std::string(kGpu), "true", TaintEffect::kNoSchedule});
  trace->cluster.node_pools = {def, gpu};
  trace->baseline_instance_types["default"] = {"m5.4xlarge", "m5.12xlarge"};
  trace->baseline_instance_types["gpu"] = {"g4dn.12xlarge", "g6.48xlarge"};
}

// The header line: column name -> index. Errors: a missing required column.
absl::StatusOr<std::map<std::string, size_t>> ReadHeader(const std::string& path,
                                                         const std::string& line) {
  std::vector<std::string> header = absl::StrSplit(line, ',');
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  const char* required[] = {"name",      "cpu_milli",     "memory_mib",   "num_gpu",
                            "gpu_milli", "creation_time", "deletion_time"};
  for (const char* r : required) {
    if (col.count(r) == 0) {
      return absl::InvalidArgumentError(
          internal::StrCat(path, ": line 1: missing column \"", r, "\""));
    }
  }
  return col;
}

// The numeric columns of one row.
struct Row {
  int64_t cpu = 0, mem = 0, num_gpu = 0, gpu_milli = 0, created = 0, deleted = 0;
};

// Reads the numeric columns of `cells` (line `line_no` of `path`) and checks them.
absl::StatusOr<Row> ReadRow(const std::string& path, int64_t line_no,
                            const std::vector<std::string>& cells,
                            std::map<std::string, size_t>& col) {
  auto number = [&](const char* name, int64_t* out) -> absl::Status {
    const std::string& cell = cells[col[name]];
    if (!absl::SimpleAtoi(cell, out) || *out < 0) {
      return absl::InvalidArgumentError(
          internal::StrCat(path, ": line ", line_no, ": column ", name,
                           ": expected a non-negative integer, got \"", cell, "\""));
    }
    return absl::OkStatus();
  };
  Row row;
  for (auto [name, out] :
       std::vector<std::pair<const char*, int64_t*>>{{"cpu_milli", &row.cpu},
                                                     {"memory_mib", &row.mem},
                                                     {"num_gpu", &row.num_gpu},
                                                     {"gpu_milli", &row.gpu_milli},
                                                     {"creation_time", &row.created},
                                                     {"deletion_time", &row.deleted}}) {
    if (absl::Status s = number(name, out); !s.ok()) return s;
  }
  if (row.mem > INT64_MAX / (1024 * 1024)) {
    return absl::InvalidArgumentError(internal::StrCat(
        path, ": line ", line_no, ": column memory_mib: ", row.mem, " MiB does not fit in bytes"));
  }
  if (row.deleted < row.created) {
    return absl::InvalidArgumentError(
        internal::StrCat(path, ": line ", line_no, ": column deletion_time: before creation_time"));
  }
  return row;
}

// The pod's requests (cpu, memory, and GPUs with their toleration).
void SetShape(const Row& row, PodShape* shape) {
  shape->requests.Set(kResourceCpu, row.cpu);
  shape->requests.Set(kResourceMemory, row.mem * 1024 * 1024);
  const int64_t gpus = row.num_gpu > 0 ? row.num_gpu : (row.gpu_milli > 0 ? 1 : 0);
  if (gpus > 0) {
    shape->requests.Set(kGpu, gpus);
    shape->tolerations.push_back(
        {std::string(kGpu), TolerationOperator::kExists, "", TaintEffect::kNoSchedule});
  }
}

}  // namespace

absl::StatusOr<Trace> LoadOpenbTrace(const std::string& path, absl::Duration from,
                                     absl::Duration until) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  auto cannot_read = [&](int err) {
    return absl::NotFoundError(internal::StrCat(internal::EscapeForMessage(path),
                                                ": cannot read file", internal::OsReason(err)));
  };
  if (!in) return cannot_read(errno);
  if (from < absl::ZeroDuration() || until <= from) {
    return absl::InvalidArgumentError(
        internal::StrCat(path, ": the replay window must satisfy 0 <= from < until"));
  }
  std::string line;
  std::vector<char> buf(kMaxLineBytes + 1);
  errno = 0;
  const LineRead header = NextLine(in, buf, &line);
  if (header == LineRead::kTooLong) return LineTooLong(path, 1);
  if (header == LineRead::kEnd) {
    // A directory opens but does not read (EISDIR); only a readable, empty file is "empty".
    if (in.bad() || errno != 0) return cannot_read(errno);
    return absl::InvalidArgumentError(internal::StrCat(path, ": empty file"));
  }
  const size_t columns = std::vector<std::string>(absl::StrSplit(line, ',')).size();
  absl::StatusOr<std::map<std::string, size_t>> col = ReadHeader(path, line);
  if (!col.ok()) return col.status();

  Trace trace;
  trace.name = "openb";
  AddCluster(&trace);

  absl::Duration last = absl::ZeroDuration();
  int64_t line_no = 1;
  std::set<std::string> names;
  for (LineRead r; (r = NextLine(in, buf, &line)) != LineRead::kEnd;) {
    ++line_no;
    if (r == LineRead::kTooLong) return LineTooLong(path, line_no);
    if (line_no > kMaxLines) {
      return absl::ResourceExhaustedError(
          internal::StrCat(internal::EscapeForMessage(path), ": more than ", kMaxLines,
                           " lines (an openb trace has thousands)"));
    }
    if (line.empty()) continue;
    std::vector<std::string> cells = absl::StrSplit(line, ',');
    if (cells.size() != columns) {
      return absl::InvalidArgumentError(internal::StrCat(path, ": line ", line_no, ": expected ",
                                                         columns, " columns, got ", cells.size()));
    }
    absl::StatusOr<Row> row = ReadRow(path, line_no, cells, *col);
    if (!row.ok()) return row.status();
    const absl::Duration c = absl::Seconds(row->created), d = absl::Seconds(row->deleted);
    if (d <= from || c >= until || d == c) continue;
    PodTrace p;
    p.name = cells[(*col)["name"]];
    if (absl::Status s = ValidateLabelValue(p.name);
        !s.ok() || p.name.empty() || !names.insert(p.name).second) {
      return absl::InvalidArgumentError(
          internal::StrCat(path, ": line ", line_no,
                           ": column name: invalid or duplicate pod name \"", p.name, "\""));
    }
    SetShape(*row, &p.pod);
    p.arrive_at = std::max(c, from) - from;
    p.leave_at = std::min(d, until) - from;
    if (d >= until) p.leave_at = absl::InfiniteDuration();
    last = std::max(last, std::min(d, until) - from);
    if (trace.pods.size() >= kMaxPods) {
      return absl::ResourceExhaustedError(internal::StrCat(
          internal::EscapeForMessage(path), ": more than ", kMaxPods,
          " pods alive in the replay window; choose a shorter one (--from, --until)"));
    }
    trace.pods.push_back(std::move(p));
  }
  if (in.bad()) return cannot_read(errno);
  if (trace.pods.empty()) {
    return absl::InvalidArgumentError(internal::StrCat(path, ": no pod alive in the window"));
  }
  trace.duration = until == absl::InfiniteDuration() ? last : until - from;
  return trace;
}

}  // namespace karp::sim
