// The extension module carries its own libstdc++ (linked from libstdc++.a, kept local by its
// version script), so it loads on systems with an older one. Every symbol that copy
// takes from glibc must then exist on the oldest glibc the wheel's tag names (2.34).
//
// One does not: GCC 12's std::random_device calls arc4random, new in glibc 2.36, and libstdc++.a
// always links random.o (its copy-on-write strings reach random_device::_M_init). This definition,
// hidden, is the one the linker binds that call to; it asks the kernel as glibc's does.

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace {

// Fills buf from the kernel's CSPRNG; false only if neither getrandom nor /dev/urandom works.
bool KernelRandom(unsigned char* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(buf + got, n - got, 0);
    if (r > 0) {
      got += static_cast<size_t>(r);
    } else if (r < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // ENOSYS (a kernel before 3.17) or a seccomp filter: try the device
    }
  }
  if (got == n) return true;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  while (got < n) {
    ssize_t r = read(fd, buf + got, n - got);
    if (r > 0) {
      got += static_cast<size_t>(r);
    } else if (!(r < 0 && errno == EINTR)) {
      break;
    }
  }
  close(fd);
  return got == n;
}

}  // namespace

// arc4random cannot report failure; like glibc's, it ends the process when randomness is gone.
extern "C" __attribute__((visibility("hidden"))) uint32_t arc4random() {
  uint32_t value;
  if (!KernelRandom(reinterpret_cast<unsigned char*>(&value), sizeof value)) abort();
  return value;
}
