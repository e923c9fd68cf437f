# Cross build for alpha-linux-gnu with Debian's cross toolchain, run under qemu-user.
#   apt-get install gcc-alpha-linux-gnu libc6.1-dev-alpha-cross qemu-user
#   cmake -S . -B build-alpha -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-alpha-linux-gnu.cmake
#   cmake --build build-alpha -j2 && (cd build-alpha && ctest)
# (scripts/cross.sh alpha-linux-gnu does exactly this.)
#
# The target's libraries and headers live in /usr/alpha-linux-gnu.  Debian's cross gcc
# already searches there (it is configured with --with-sysroot=/ and
# --includedir=/usr/alpha-linux-gnu/include), and the libc.so linker scripts hold absolute
# /usr/alpha-linux-gnu/lib paths, so passing --sysroot=/usr/alpha-linux-gnu would break the link:
# /usr/alpha-linux-gnu is therefore the find root (CMAKE_FIND_ROOT_PATH) for CMake's
# find_* commands and the -L prefix of qemu, not CMAKE_SYSROOT.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR alpha)
set(PM_CROSS_TRIPLE alpha-linux-gnu)
set(PM_CROSS_ROOT /usr/${PM_CROSS_TRIPLE})

set(CMAKE_C_COMPILER ${PM_CROSS_TRIPLE}-gcc)
find_program(_pm_cross_cxx ${PM_CROSS_TRIPLE}-g++)
if(_pm_cross_cxx)
  set(CMAKE_CXX_COMPILER ${_pm_cross_cxx})
endif()

set(CMAKE_FIND_ROOT_PATH ${PM_CROSS_ROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Never pick up the build machine's .pc files.
set(ENV{PKG_CONFIG_LIBDIR} "${PM_CROSS_ROOT}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# Test programs run under qemu-user with the target's dynamic loader and libc.
find_program(PM_QEMU NAMES qemu-alpha qemu-alpha-static)
if(NOT PM_QEMU)
  message(FATAL_ERROR "qemu-alpha not found: apt-get install qemu-user")
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR "${PM_QEMU};-L;${PM_CROSS_ROOT}")

# What the platform test (tests/cross) must observe under the emulator.
set(PROFILEME_EXPECT_PAGE_SIZE 8192 CACHE STRING "Page size the tests must see (0: do not check)")
set(PROFILEME_EXPECT_BIG_ENDIAN OFF CACHE STRING "Byte order the tests must see (ON/OFF, empty: do not check)")
