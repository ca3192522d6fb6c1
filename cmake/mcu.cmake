# The freestanding build (AP_PORT_NONE), included by CMakeLists.txt with AP_LIB_SOURCES
# already filtered: libarenaplan.a for one Cortex-M core, and the firmware examples.
add_library(arenaplan_static STATIC ${AP_LIB_SOURCES})
set_target_properties(arenaplan_static PROPERTIES OUTPUT_NAME arenaplan)
target_include_directories(arenaplan_static PUBLIC ${CMAKE_SOURCE_DIR}/include
  PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_compile_definitions(arenaplan_static PUBLIC AP_PORT_NONE)
