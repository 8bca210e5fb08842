// libFuzzer target: karp::sim::LoadOpenbTrace (the Alibaba "openb" CSV) on arbitrary bytes.
// The reader only takes a path, so the input is written to an in-memory file (memfd) read as
// /proc/self/fd/<n>. The first byte picks the replay window (some invalid); the rest is the
// CSV. It must never crash, hang or throw; errors must be InvalidArgument. A loaded trace has
// pods with unique names that arrive within the window and leave no earlier than they arrive,
// and non-negative canonical requests.

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/sim/simulator.h"
#include "karp/sim/trace.h"

namespace {

[[noreturn]] void Fail(std::string_view what, std::string_view input) {
  std::fprintf(stderr, "openb_fuzz: %.*s\ninput: %.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(input.size()), input.data());
  std::abort();
}

int MemFd() {
  static const int fd = [] {
    int f = memfd_create("openb_fuzz", 0);
    if (f < 0) {
      std::perror("openb_fuzz: memfd_create");
      std::abort();
    }
    return f;
  }();
  return fd;
}

struct Window {
  absl::Duration from;
  absl::Duration until;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Window windows[] = {
      {absl::ZeroDuration(), absl::InfiniteDuration()},
      {absl::Seconds(100), absl::Seconds(1000)},
      {absl::ZeroDuration(), absl::Seconds(1)},
      {absl::Seconds(5), absl::Seconds(5)},   // empty: invalid
      {absl::Seconds(-1), absl::Seconds(5)},  // negative: invalid
      {absl::Hours(1), absl::InfiniteDuration()},
  };
  const Window w = windows[data[0] % (sizeof(windows) / sizeof(windows[0]))];
  const std::string_view csv(reinterpret_cast<const char*>(data + 1), size - 1);

  const int fd = MemFd();
  if (ftruncate(fd, 0) != 0 ||
      pwrite(fd, csv.data(), csv.size(), 0) != static_cast<ssize_t>(csv.size())) {
    std::perror("openb_fuzz: write");
    std::abort();
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  absl::StatusOr<karp::sim::Trace> trace = karp::sim::LoadOpenbTrace(path, w.from, w.until);
  if (!trace.ok()) {
    if (trace.status().code() != absl::StatusCode::kInvalidArgument) {
      Fail("error is not InvalidArgument: " + trace.status().ToString(), csv);
    }
    return 0;
  }
  if (trace->pods.empty()) Fail("trace without pods", csv);
  if (trace->duration <= absl::ZeroDuration()) Fail("non-positive duration", csv);
  std::set<std::string> names;
  for (const karp::sim::PodTrace& p : trace->pods) {
    if (p.name.empty() || !names.insert(p.name).second) Fail("empty or duplicate pod name", csv);
    if (p.arrive_at < absl::ZeroDuration() || p.leave_at <= p.arrive_at) {
      Fail("bad pod times", csv);
    }
    if (p.arrive_at >= w.until - w.from) Fail("pod arrives after the window", csv);
    if (p.pod.requests.AnyNegative()) Fail("negative request", csv);
  }
  return 0;
}
