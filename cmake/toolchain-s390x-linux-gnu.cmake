# Cross build for s390x-linux-gnu with Debian's cross toolchain, run under qemu-user.
#   apt-get install gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user
#   cmake -S . -B build-s390x -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-s390x-linux-gnu.cmake
#   cmake --build build-s390x -j2 && (cd build-s390x && ctest)
# (scripts/cross.sh s390x-linux-gnu does exactly this.)
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(PM_CROSS_TRIPLE s390x-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/cross-linux-gnu.cmake)

# What the platform test (tests/cross) must observe under the emulator.
set(PROFILEME_EXPECT_PAGE_SIZE 4096 CACHE STRING "Page size the tests must see (0: do not check)")
set(PROFILEME_EXPECT_BIG_ENDIAN ON CACHE STRING "Byte order the tests must see (ON/OFF, empty: do not check)")
