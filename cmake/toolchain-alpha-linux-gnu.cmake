# Cross build for alpha-linux-gnu with Debian's cross toolchain, run under qemu-user.
#   apt-get install gcc-alpha-linux-gnu libc6.1-dev-alpha-cross qemu-user
#   cmake -S . -B build-alpha -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-alpha-linux-gnu.cmake
#   cmake --build build-alpha -j2 && (cd build-alpha && ctest)
# (scripts/cross.sh alpha-linux-gnu does exactly this.)
set(CMAKE_SYSTEM_PROCESSOR alpha)
set(PM_CROSS_TRIPLE alpha-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/cross-linux-gnu.cmake)

# What the platform test (tests/cross) must observe under the emulator.
set(PROFILEME_EXPECT_PAGE_SIZE 8192 CACHE STRING "Page size the tests must see (0: do not check)")
set(PROFILEME_EXPECT_BIG_ENDIAN OFF CACHE STRING "Byte order the tests must see (ON/OFF, empty: do not check)")
