# CMake toolchain file for Arm Cortex-M with Debian's gcc-arm-none-eabi and newlib:
#   cmake -S . -B build-mcu/cortex-m4 -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake \
#         -DAP_MCU_CPU=cortex-m4
# AP_MCU_CPU: cortex-m0plus, cortex-m3, cortex-m4 (hard float), cortex-m7 (hard float),
# cortex-m33, cortex-m55 (hard float, Helium). The build is the freestanding port
# (AP_PORT_NONE): libarenaplan.a only.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_AR arm-none-eabi-ar)
set(CMAKE_RANLIB arm-none-eabi-ranlib)
set(CMAKE_OBJCOPY arm-none-eabi-objcopy)
set(CMAKE_SIZE arm-none-eabi-size)
# No host link for the compiler checks: a static library is enough to try a compile.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)

set(AP_MCU_CPU "cortex-m4" CACHE STRING "The Cortex-M core (-mcpu)")
if(AP_MCU_CPU STREQUAL "cortex-m4")
  set(AP_MCU_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
elseif(AP_MCU_CPU STREQUAL "cortex-m7")
  set(AP_MCU_FLAGS "-mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16")
elseif(AP_MCU_CPU STREQUAL "cortex-m55")
  set(AP_MCU_FLAGS "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard")
elseif(AP_MCU_CPU STREQUAL "cortex-m33")
  set(AP_MCU_FLAGS "-mcpu=cortex-m33 -mthumb -mfloat-abi=hard -mfpu=fpv5-sp-d16")
else()
  set(AP_MCU_FLAGS "-mcpu=${AP_MCU_CPU} -mthumb -mfloat-abi=soft")
endif()
set(CMAKE_C_FLAGS_INIT
    "${AP_MCU_FLAGS} -ffunction-sections -fdata-sections -DAP_ERRMSG_MAX=128 -DAP_SCHEMA_NO_NAMES -include ${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi-int32.h")
set(CMAKE_ASM_FLAGS_INIT "${AP_MCU_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${AP_MCU_FLAGS} -Wl,--gc-sections")
set(CMAKE_BUILD_TYPE MinSizeRel CACHE STRING "")
set(AP_PORT_NONE ON CACHE BOOL "" FORCE)
