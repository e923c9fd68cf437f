# Shared body of the cross toolchain files (toolchain-<triple>.cmake): they
# set CMAKE_SYSTEM_PROCESSOR, PM_CROSS_TRIPLE and what the platform test must
# observe, then include this file.
#
# The target's libraries and headers live in /usr/<triple>.  Debian's cross gcc
# already searches there (it is configured with --with-sysroot=/ and
# --includedir=/usr/<triple>/include), and the libc.so linker scripts hold
# absolute /usr/<triple>/lib paths, so passing --sysroot=/usr/<triple> would
# break the link: /usr/<triple> is therefore the find root
# (CMAKE_FIND_ROOT_PATH) for CMake's find_* commands and the -L prefix of
# qemu, not CMAKE_SYSROOT.
set(CMAKE_SYSTEM_NAME Linux)
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
find_program(PM_QEMU NAMES qemu-${CMAKE_SYSTEM_PROCESSOR} qemu-${CMAKE_SYSTEM_PROCESSOR}-static)
if(NOT PM_QEMU)
  message(FATAL_ERROR "qemu-${CMAKE_SYSTEM_PROCESSOR} not found: apt-get install qemu-user")
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR "${PM_QEMU};-L;${PM_CROSS_ROOT}")

