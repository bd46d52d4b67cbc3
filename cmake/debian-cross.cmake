# Shared part of the Debian cross toolchain files (aarch64-linux-gnu.cmake,
# arm-linux-gnueabihf.cmake), which set VIREO_TRIPLET and VIREO_QEMU first.
# Compilers: Debian's g++-<triplet> (C library and libstdc++ in /usr/<triplet>). Target
# libraries: the sysroot scripts/arm-sysroot.sh unpacks (-DVIREO_SYSROOT=... or the
# environment). Executables (test discovery) run under qemu-user-static.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${VIREO_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${VIREO_TRIPLET}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${VIREO_TRIPLET})

if(NOT VIREO_SYSROOT)
  set(VIREO_SYSROOT "$ENV{VIREO_SYSROOT}")
endif()
if(NOT IS_DIRECTORY "${VIREO_SYSROOT}/usr/lib/${VIREO_TRIPLET}")
  message(FATAL_ERROR "No ${VIREO_TRIPLET} libraries in VIREO_SYSROOT='${VIREO_SYSROOT}': "
                      "make one with scripts/arm-sysroot.sh")
endif()
# try_compile projects read this file again and need the same sysroot.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES VIREO_SYSROOT)

set(CMAKE_FIND_ROOT_PATH ${VIREO_SYSROOT} /usr/${VIREO_TRIPLET})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} "${VIREO_SYSROOT}/usr/lib/${VIREO_TRIPLET}/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${VIREO_SYSROOT}")

# The cross compiler searches the host's /usr/include last: the sysroot's headers, with the
# per-architecture ones (openssl/configuration.h, lua5.1-deb-multiarch.h), must come first.
set(VIREO_CROSS_FLAGS
    "-isystem ${VIREO_SYSROOT}/usr/include/${VIREO_TRIPLET} -isystem ${VIREO_SYSROOT}/usr/include")
set(CMAKE_C_FLAGS_INIT "${VIREO_CROSS_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${VIREO_CROSS_FLAGS}")
# libssl.so needs libcrypto.so.3 at link time; the build RPATH finds them all at run time.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${VIREO_SYSROOT}/usr/lib/${VIREO_TRIPLET}")

set(CMAKE_CROSSCOMPILING_EMULATOR ${VIREO_QEMU} -L /usr/${VIREO_TRIPLET})
