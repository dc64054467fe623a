# Embeds every header of kernels/ into the library as data, so an installed
# library JIT-compiles without a source tree. Generates embedded_kernels.cpp
# with one (path, text) entry per file.
file(GLOB EPIGEMM_KERNEL_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/kernels/*.cuh)
set(EPIGEMM_EMBEDDED_KERNELS_CPP ${PROJECT_BINARY_DIR}/generated/embedded_kernels.cpp)
add_custom_command(
  OUTPUT ${EPIGEMM_EMBEDDED_KERNELS_CPP}
  COMMAND ${CMAKE_COMMAND} -DOUT=${EPIGEMM_EMBEDDED_KERNELS_CPP} "-DFILES=${EPIGEMM_KERNEL_FILES}"
          -P ${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake
  DEPENDS ${EPIGEMM_KERNEL_FILES} ${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake
  COMMENT "Embedding kernels/*.cuh"
  VERBATIM)
