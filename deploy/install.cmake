# Install-time part of `make install` / `cmake --install` (included by CMakeLists.txt's
# install(SCRIPT)): places the config file and the systemd unit for the prefix given at install
# time. VIREO_SOURCE_DIR and VIREO_BINARY_DIR are set by the install(CODE) before it.
#
# Layout: the config goes to /etc/vireo when the prefix is /usr (as Debian packages do), else to
# <prefix>/etc/vireo; an existing vireo.conf is never overwritten (it holds the admin's
# changes). The unit goes to <prefix>/lib/systemd/system with its ExecStart paths rewritten
# for the prefix.
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(vireo_etc "/etc/vireo")
else()
  set(vireo_etc "${CMAKE_INSTALL_PREFIX}/etc/vireo")
endif()

if(EXISTS "$ENV{DESTDIR}${vireo_etc}/vireo.conf")
  message(STATUS "Keeping existing: $ENV{DESTDIR}${vireo_etc}/vireo.conf")
else()
  file(INSTALL "${VIREO_SOURCE_DIR}/vireo.conf" DESTINATION "${vireo_etc}"
       PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
endif()

file(READ "${VIREO_SOURCE_DIR}/deploy/systemd/vireo.service" vireo_unit)
string(REPLACE "/usr/bin/vireo-server" "${CMAKE_INSTALL_PREFIX}/bin/vireo-server" vireo_unit
       "${vireo_unit}")
string(REPLACE "/etc/vireo/vireo.conf" "${vireo_etc}/vireo.conf" vireo_unit "${vireo_unit}")
# A private name: two installs from one build directory may run at once.
string(RANDOM LENGTH 12 vireo_tag)
set(vireo_unit_file "${VIREO_BINARY_DIR}/vireo.service.${vireo_tag}")
file(WRITE "${vireo_unit_file}" "${vireo_unit}")
file(INSTALL "${vireo_unit_file}" DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/systemd/system"
     RENAME vireo.service PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
file(REMOVE "${vireo_unit_file}")
