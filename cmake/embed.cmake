# gpufleet_embed(<target> BASE <dir> FILES <relative paths...>)
# Compiles the given data files into <target> so the binary needs no data
# directory at run time. The target defines the functions declared in
# core/embedded.h; link it where embedded data is read.
function(gpufleet_embed target)
  cmake_parse_arguments(E "" "BASE" "FILES" ${ARGN})
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}_embedded.cc")
  set(abs_files "")
  foreach(f ${E_FILES})
    list(APPEND abs_files "${E_BASE}/${f}")
  endforeach()
  string(REPLACE ";" "|" files_arg "${E_FILES}")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DBASE=${E_BASE} "-DFILES=${files_arg}"
            -P "${PROJECT_SOURCE_DIR}/cmake/embed_gen.cmake"
    DEPENDS ${abs_files} "${PROJECT_SOURCE_DIR}/cmake/embed_gen.cmake"
    COMMENT "Embedding data files into ${target}"
    VERBATIM)
  add_library(${target} STATIC "${out}")
  target_link_libraries(${target} PUBLIC gpufleet::core)
endfunction()
