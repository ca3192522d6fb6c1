# The freestanding build (AP_PORT_NONE), included by CMakeLists.txt with AP_LIB_SOURCES
# already filtered: libarenaplan.a for one Cortex-M core (the firmware example is built by
# scripts/test_mcu.sh).
add_library(arenaplan_static STATIC ${AP_LIB_SOURCES})
# Not position-independent (the host build's default): a GOT and relocated constant tables in
# RAM cost a firmware bytes for nothing.
set_target_properties(arenaplan_static PROPERTIES OUTPUT_NAME arenaplan POSITION_INDEPENDENT_CODE OFF)
target_include_directories(arenaplan_static PUBLIC ${CMAKE_SOURCE_DIR}/include
  PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_compile_definitions(arenaplan_static PUBLIC AP_PORT_NONE)
# Formatted error messages cost a firmware its format strings and vsnprintf (about 10 KB);
# OFF (the default) keeps each failure's status and a constant message (the status's name).
option(AP_MCU_MESSAGES "Formatted error messages in the freestanding build" OFF)
if(NOT AP_MCU_MESSAGES)
  target_compile_definitions(arenaplan_static PUBLIC AP_NO_MESSAGES)
endif()
# The fast kernels' loops at -O2, the rest at -Os: on the Cortex-M4 -Os leaves the
# convolutions' index arithmetic in the inner loops, while the other layers' code (prepare,
# adapters, the runtime) is cold and -Os saves it flash. person_detect_int8, planned firmware,
# Cortex-M4 (DSP level): this default 36.9 KB and 47.8 M instructions per invoke; everything at
# -Os 36.0 KB and 52.2 M; all of src/kernels at -O2 38.9 KB and 47.0 M (streamed segments,
# which run the reference rows, 118.7 M instead of 220 M). Empty flags: everything at -Os.
set(AP_MCU_KERNEL_FLAGS "-O2" CACHE STRING "Flags for the hot kernels in the freestanding build")
set(AP_MCU_KERNEL_FILES "/src/kernels/fast/" CACHE STRING
    "A regex of the sources AP_MCU_KERNEL_FLAGS applies to")
# ... but for the streamed segments' row-range drivers (rows.c), whose loops are the levels'
# (int8_dsp.c): at -Os person_detect's streamed firmware is 352 B smaller for 0.1% more
# instructions (46.10 M instead of 46.05 M).
set(AP_MCU_KERNEL_EXCLUDE "/src/kernels/fast/rows\\.c$" CACHE STRING
    "A regex of the sources AP_MCU_KERNEL_FILES matches that stay at -Os")
if(AP_MCU_KERNEL_FLAGS)
  set(AP_KERNEL_SOURCES ${AP_LIB_SOURCES})
  list(FILTER AP_KERNEL_SOURCES INCLUDE REGEX "${AP_MCU_KERNEL_FILES}")
  if(AP_MCU_KERNEL_EXCLUDE)
    list(FILTER AP_KERNEL_SOURCES EXCLUDE REGEX "${AP_MCU_KERNEL_EXCLUDE}")
  endif()
  # The DSP level's small family (dsp_small.c) always at -Os: it is the one chosen where flash
  # is tighter than time (the streamed person_detect of issue 18: 37,117 B at -Os, 50.1 M
  # instructions; 37,469 B at -O2, over its 37,352). Not in the cached regex, so a build
  # directory configured before keeps it too.
  list(FILTER AP_KERNEL_SOURCES EXCLUDE REGEX "/src/kernels/fast/dsp_small\\.c$")
  set_source_files_properties(${AP_KERNEL_SOURCES} PROPERTIES COMPILE_OPTIONS "${AP_MCU_KERNEL_FLAGS}")
endif()
