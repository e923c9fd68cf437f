# check_symbol needs libelf: without it the test program only says why it
# skips.  With it, the test builds small ELF workloads with known function
# names: non-PIE, PIE (plus stripped, debug-file and debug-link copies) and a
# shared library.  Included from tests/CMakeLists.txt.
if(NOT TARGET check_symbol OR NOT PM_LIBELF_FOUND)
  return()
endif()
set(_symd ${CMAKE_CURRENT_LIST_DIR})

add_executable(pm_symtest_nopie ${_symd}/workload.c)
set_target_properties(pm_symtest_nopie PROPERTIES POSITION_INDEPENDENT_CODE OFF)
target_compile_options(pm_symtest_nopie PRIVATE -fno-pie -g -O1)
target_link_options(pm_symtest_nopie PRIVATE -no-pie)

add_executable(pm_symtest_pie ${_symd}/workload.c)
set_target_properties(pm_symtest_pie PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET default)
target_compile_options(pm_symtest_pie PRIVATE -fPIE -g -O1)
target_link_options(pm_symtest_pie PRIVATE -pie -rdynamic -Wl,--build-id)
set(_pie $<TARGET_FILE:pm_symtest_pie>)
add_custom_command(TARGET pm_symtest_pie POST_BUILD
  COMMAND ${CMAKE_OBJCOPY} --only-keep-debug ${_pie} ${_pie}.debug
  COMMAND ${CMAKE_STRIP} --strip-all -o ${_pie}.stripped ${_pie}
  COMMAND ${CMAKE_OBJCOPY} --add-gnu-debuglink=${_pie}.debug ${_pie}.stripped ${_pie}.dbglink
  VERBATIM)

add_library(pm_symtest_lib SHARED ${_symd}/symlib.c)
set_target_properties(pm_symtest_lib PROPERTIES C_VISIBILITY_PRESET default)
target_compile_options(pm_symtest_lib PRIVATE -g -O1)

add_dependencies(check_symbol pm_symtest_nopie pm_symtest_pie pm_symtest_lib)
target_compile_definitions(check_symbol PRIVATE PM_HAVE_LIBELF=1
  PM_SYMTEST_NOPIE="$<TARGET_FILE:pm_symtest_nopie>"
  PM_SYMTEST_PIE="$<TARGET_FILE:pm_symtest_pie>"
  PM_SYMTEST_LIB="$<TARGET_FILE:pm_symtest_lib>"
  PM_TEST_NM="${CMAKE_NM}")
target_link_libraries(check_symbol PRIVATE PkgConfig::PM_LIBELF ${CMAKE_DL_LIBS})
