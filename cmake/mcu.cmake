# The freestanding build (AP_PORT_NONE), included by CMakeLists.txt with AP_LIB_SOURCES
# already filtered: libarenaplan.a for one Cortex-M core, and the firmware examples.
add_library(arenaplan_static STATIC ${AP_LIB_SOURCES})
# Not position-independent (the host build's default): a GOT and relocated constant tables in
# RAM cost a firmware bytes for nothing.
set_target_properties(arenaplan_static PROPERTIES OUTPUT_NAME arenaplan POSITION_INDEPENDENT_CODE OFF)
target_include_directories(arenaplan_static PUBLIC ${CMAKE_SOURCE_DIR}/include
  PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_compile_definitions(arenaplan_static PUBLIC AP_PORT_NONE)
