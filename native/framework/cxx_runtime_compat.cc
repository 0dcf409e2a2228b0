// The wheel's shared objects link the C++ runtime statically (bazel/cc.bzl's
// STATIC_CXX_RUNTIME_LINKOPTS) so that they need glibc alone. GCC 12's libstdc++.a calls
// arc4random (glibc 2.36) from std::random_device, which the archive's string instantiations
// pull in although swigflow never constructs one. This hidden definition satisfies that call
// inside each shared object, so the glibc they ask for stays at 2.34 (manylinux_2_34).

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace {

// Fills `size` bytes from the kernel: getrandom (Linux 3.17+), else /dev/urandom.
bool KernelRandom(void* out, size_t size) {
  auto* bytes = static_cast<unsigned char*>(out);
  size_t filled = 0;
  while (filled < size) {
    ssize_t got = getrandom(bytes + filled, size - filled, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) break;
    filled += static_cast<size_t>(got);
  }
  if (filled == size) return true;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  while (filled < size) {
    ssize_t got = read(fd, bytes + filled, size - filled);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    filled += static_cast<size_t>(got);
  }
  close(fd);
  return filled == size;
}

}  // namespace

extern "C" __attribute__((visibility("hidden"))) uint32_t arc4random() noexcept {
  uint32_t value;
  // arc4random cannot fail; neither can a system without a kernel random source run this.
  if (!KernelRandom(&value, sizeof value)) std::abort();
  return value;
}
