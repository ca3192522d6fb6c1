# The freestanding build (AP_PORT_NONE), included by CMakeLists.txt with AP_LIB_SOURCES
# already filtered: libarenaplan.a for one Cortex-M core, and the firmware examples.
add_library(arenaplan_static STATIC ${AP_LIB_SOURCES})
# Not position-independent (the host build's default): a GOT and relocated constant tables in
# RAM cost a firmware bytes for nothing.
set_target_properties(arenaplan_static PROPERTIES OUTPUT_NAME arenaplan POSITION_INDEPENDENT_CODE OFF)
target_include_directories(arenaplan_static PUBLIC ${CMAKE_SOURCE_DIR}/include
  PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_compile_definitions(arenaplan_static PUBLIC AP_PORT_NONE)
# The kernels' loops at -O2, the rest at -Os: on the Cortex-M4 -Os leaves the convolutions'
# index arithmetic in the inner loops (person_detect: 179 M instructions per invoke at -Os,
# about 100 M at -O2), while the other layers' code is cold and -Os saves it flash.
option(AP_MCU_KERNELS_O2 "Compile src/kernels at -O2 in the freestanding build" ON)
if(AP_MCU_KERNELS_O2)
  set(AP_KERNEL_SOURCES ${AP_LIB_SOURCES})
  list(FILTER AP_KERNEL_SOURCES INCLUDE REGEX "/src/kernels/")
  set_source_files_properties(${AP_KERNEL_SOURCES} PROPERTIES COMPILE_OPTIONS "-O2")
endif()
