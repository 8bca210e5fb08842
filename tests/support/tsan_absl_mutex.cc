// absl::Mutex made visible to ThreadSanitizer, for TSan builds against an Abseil that was not
// built with TSan (Debian's libabsl). Linked into the executables of a TSan build only (the
// `tsan` preset; the top-level CMakeLists.txt adds it when CMAKE_CXX_FLAGS has
// -fsanitize=thread); elsewhere it compiles to nothing.
//
// TSan learns about synchronisation from instrumented code and from the libc functions it
// intercepts. absl::Mutex locks with atomics and futexes inside libabsl_synchronization.so,
// which is not instrumented, so TSan would see no order between a write under the lock in one
// thread and a read under it in another, and report every such pair as a data race. The
// definitions below take the place of the library's (the executable's symbols come first),
// call the library's own through dlsym(RTLD_NEXT), and tell TSan what the lock implies:
// __tsan_release(mutex) before the lock is given up, __tsan_acquire(mutex) after it is taken.
// Races on data without a lock are still reported; lock-order inversions on absl::Mutex are not
// (TSan sees no mutex, only the order). Covers what karp and its tests call: Lock, Unlock,
// TryLock, the reader forms, Await*, LockWhen* and CondVar::Wait*.

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KARP_TSAN_ABSL_MUTEX 1
#endif
#endif

#ifdef KARP_TSAN_ABSL_MUTEX

#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/base/options.h"
#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace {

#define KARP_STRINGIFY_INNER(x) #x
#define KARP_STRINGIFY(x) KARP_STRINGIFY_INNER(x)

// The Itanium-mangled name of absl::<rest>, `rest` written with `@` for the substitution of
// the namespace that holds Mutex (absl, or its inline namespace).
std::string Mangled(const char* rest) {
#if ABSL_OPTION_USE_INLINE_NAMESPACE
  const std::string inline_ns = KARP_STRINGIFY(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  std::string out = "_ZN4absl" + std::to_string(inline_ns.size()) + inline_ns;
  const std::string sub = "S0_";
#else
  std::string out = "_ZN4absl";
  const std::string sub = "S_";
#endif
  for (const char* c = rest; *c != '\0'; ++c) {
    if (*c == '@') {
      out += sub;
    } else {
      out += *c;
    }
  }
  return out;
}

// The library's definition of the member whose mangled name ends with `rest`.
template <typename Fn>
Fn Real(const char* rest) {
  const std::string name = Mangled(rest);
  void* fn = dlsym(RTLD_NEXT, name.c_str());
  if (fn == nullptr) {
    std::fprintf(stderr, "tsan_absl_mutex: %s not found in the Abseil libraries\n", name.c_str());
    std::abort();
  }
  return reinterpret_cast<Fn>(fn);
}

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

ABSL_NO_THREAD_SAFETY_ANALYSIS void Mutex::Lock() {
  static const auto real = Real<void (*)(Mutex*)>("5Mutex4LockEv");
  real(this);
  __tsan_acquire(this);
}

ABSL_NO_THREAD_SAFETY_ANALYSIS void Mutex::ReaderLock() {
  static const auto real = Real<void (*)(Mutex*)>("5Mutex10ReaderLockEv");
  real(this);
  __tsan_acquire(this);
}

ABSL_NO_THREAD_SAFETY_ANALYSIS bool Mutex::TryLock() {
  static const auto real = Real<bool (*)(Mutex*)>("5Mutex7TryLockEv");
  const bool locked = real(this);
  if (locked) __tsan_acquire(this);
  return locked;
}

ABSL_NO_THREAD_SAFETY_ANALYSIS bool Mutex::ReaderTryLock() {
  static const auto real = Real<bool (*)(Mutex*)>("5Mutex13ReaderTryLockEv");
  const bool locked = real(this);
  if (locked) __tsan_acquire(this);
  return locked;
}

ABSL_NO_THREAD_SAFETY_ANALYSIS void Mutex::Unlock() {
  static const auto real = Real<void (*)(Mutex*)>("5Mutex6UnlockEv");
  __tsan_release(this);
  real(this);
}

ABSL_NO_THREAD_SAFETY_ANALYSIS void Mutex::ReaderUnlock() {
  static const auto real = Real<void (*)(Mutex*)>("5Mutex12ReaderUnlockEv");
  __tsan_release(this);
  real(this);
}

// Await* and CondVar::Wait* give the lock up while they wait and hold it again on return.
ABSL_NO_THREAD_SAFETY_ANALYSIS void Mutex::Await(const Condition& cond) {
  static const auto real = Real<void (*)(Mutex*, const Condition&)>("5Mutex5AwaitERKN@9ConditionE");
  __tsan_release(this);
  real(this, cond);
  __tsan_acquire(this);
}

ABSL_NO_THREAD_SAFETY_ANALYSIS bool Mutex::AwaitWithTimeout(const Condition& cond,
                                                            absl::Duration timeout) {
  static const auto real = Real<bool (*)(Mutex*, const Condition&, absl::Duration)>(
      "5Mutex16AwaitWithTimeoutERKN@9ConditionEN@8DurationE");
  __tsan_release(this);
  const bool met = real(this, cond, timeout);
  __tsan_acquire(this);
  return met;
}

ABSL_NO_THREAD_SAFETY_ANALYSIS bool Mutex::AwaitWithDeadline(const Condition& cond,
                                                             absl::Time deadline) {
  static const auto real = Real<bool (*)(Mutex*, const Condition&, absl::Time)>(
      "5Mutex17AwaitWithDeadlineERKN@9ConditionEN@4TimeE");
  __tsan_release(this);
  const bool met = real(this, cond, deadline);
  __tsan_acquire(this);
  return met;
}

ABSL_NO_THREAD_SAFETY_ANALYSIS void Mutex::LockWhen(const Condition& cond) {
  static const auto real =
      Real<void (*)(Mutex*, const Condition&)>("5Mutex8LockWhenERKN@9ConditionE");
  real(this, cond);
  __tsan_acquire(this);
}

ABSL_NO_THREAD_SAFETY_ANALYSIS void Mutex::ReaderLockWhen(const Condition& cond) {
  static const auto real =
      Real<void (*)(Mutex*, const Condition&)>("5Mutex14ReaderLockWhenERKN@9ConditionE");
  real(this, cond);
  __tsan_acquire(this);
}

ABSL_NO_THREAD_SAFETY_ANALYSIS bool Mutex::LockWhenWithTimeout(const Condition& cond,
                                                               absl::Duration timeout) {
  static const auto real = Real<bool (*)(Mutex*, const Condition&, absl::Duration)>(
      "5Mutex19LockWhenWithTimeoutERKN@9ConditionEN@8DurationE");
  const bool met = real(this, cond, timeout);
  __tsan_acquire(this);  // held on return, met or not
  return met;
}

ABSL_NO_THREAD_SAFETY_ANALYSIS bool Mutex::LockWhenWithDeadline(const Condition& cond,
                                                                absl::Time deadline) {
  static const auto real = Real<bool (*)(Mutex*, const Condition&, absl::Time)>(
      "5Mutex20LockWhenWithDeadlineERKN@9ConditionEN@4TimeE");
  const bool met = real(this, cond, deadline);
  __tsan_acquire(this);
  return met;
}

void CondVar::Wait(Mutex* mu) {
  static const auto real = Real<void (*)(CondVar*, Mutex*)>("7CondVar4WaitEPN@5MutexE");
  __tsan_release(mu);
  real(this, mu);
  __tsan_acquire(mu);
}

bool CondVar::WaitWithTimeout(Mutex* mu, absl::Duration timeout) {
  static const auto real = Real<bool (*)(CondVar*, Mutex*, absl::Duration)>(
      "7CondVar15WaitWithTimeoutEPN@5MutexEN@8DurationE");
  __tsan_release(mu);
  const bool timed_out = real(this, mu, timeout);
  __tsan_acquire(mu);
  return timed_out;
}

bool CondVar::WaitWithDeadline(Mutex* mu, absl::Time deadline) {
  static const auto real =
      Real<bool (*)(CondVar*, Mutex*, absl::Time)>("7CondVar16WaitWithDeadlineEPN@5MutexEN@4TimeE");
  __tsan_release(mu);
  const bool timed_out = real(this, mu, deadline);
  __tsan_acquire(mu);
  return timed_out;
}

ABSL_NAMESPACE_END
}  // namespace absl

#endif  // KARP_TSAN_ABSL_MUTEX
