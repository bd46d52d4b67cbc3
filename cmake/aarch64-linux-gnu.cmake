# Cross build for 64-bit ARM (Raspberry Pi 4/5, Graviton): see cmake/debian-cross.cmake and
# scripts/arm-check.sh.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(VIREO_TRIPLET aarch64-linux-gnu)
set(VIREO_QEMU qemu-aarch64-static)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
