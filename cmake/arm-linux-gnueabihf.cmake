# Cross build for 32-bit ARM (armhf: ARMv7, hard float; 32-bit size_t and pointers): see
# cmake/debian-cross.cmake and scripts/arm-check.sh.
set(CMAKE_SYSTEM_PROCESSOR armv7l)
set(VIREO_TRIPLET arm-linux-gnueabihf)
set(VIREO_QEMU qemu-arm-static)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
